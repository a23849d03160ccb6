#!/usr/bin/env python3
"""The lid-driven cavity step of Barba's CFD Python ("12 steps to Navier-Stokes", step 11) in
CuPy: the peer the cavity goal of docs/PERFORMANCE.md is measured against, side by side with
Eddy's cavity deck on the same GPU (scripts/bench --gpu).

Each step builds the pressure equation's source from the velocity, relaxes the pressure by a
fixed number of Jacobi sweeps (50, as the notebook; they do not solve the equation, and the
script reports how far from solved they leave it), then updates the velocity with first-order
upwind convection and central diffusion, every operation a whole-array CuPy expression.

    cavity_cupy.py [N] [STEPS] [SWEEPS]     (defaults 4096, 20, 50)

Prints the milliseconds per step (the median of STEPS timed steps after 3 untimed ones, each
fenced by a device synchronisation) and the relative residual |lap p - b| / |b| of the last
step's pressure.
"""
import statistics
import sys
import time

import cupy as cp


def build_up_b(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = rho * (
        1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
        - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
        - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
        - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2
    )


def pressure_poisson(p, dx, dy, b, sweeps):
    for _ in range(sweeps):
        pn = p.copy()
        p[1:-1, 1:-1] = (
            (pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2
        ) / (2 * (dx**2 + dy**2)) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
        p[:, -1] = p[:, -2]  # dp/dx = 0 at x = 2
        p[0, :] = p[1, :]  # dp/dy = 0 at y = 0
        p[:, 0] = p[:, 1]  # dp/dx = 0 at x = 0
        p[-1, :] = 0.0  # p = 0 at y = 2


def step(u, v, p, b, dt, dx, dy, rho, nu, sweeps):
    un = u.copy()
    vn = v.copy()
    build_up_b(b, rho, dt, u, v, dx, dy)
    pressure_poisson(p, dx, dy, b, sweeps)
    u[1:-1, 1:-1] = (
        un[1:-1, 1:-1]
        - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
        - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
        - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
        + nu * (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                + dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1]))
    )
    v[1:-1, 1:-1] = (
        vn[1:-1, 1:-1]
        - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
        - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
        - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
        + nu * (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                + dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1]))
    )
    u[0, :] = 0.0
    u[:, 0] = 0.0
    u[:, -1] = 0.0
    u[-1, :] = 1.0  # the lid
    v[0, :] = 0.0
    v[-1, :] = 0.0
    v[:, 0] = 0.0
    v[:, -1] = 0.0


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    sweeps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    dx = dy = 2.0 / (n - 1)
    rho, nu = 1.0, 0.1
    dt = 0.2 * dx * dx / nu  # within the explicit diffusion limit dx^2 / (4 nu)
    u = cp.zeros((n, n))
    v = cp.zeros((n, n))
    p = cp.zeros((n, n))
    b = cp.zeros((n, n))
    times = []
    for k in range(steps + 3):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        step(u, v, p, b, dt, dx, dy, rho, nu, sweeps)
        cp.cuda.Device().synchronize()
        if k >= 3:
            times.append(time.perf_counter() - t0)
    lap = (p[1:-1, 2:] - 2 * p[1:-1, 1:-1] + p[1:-1, 0:-2]) / dx**2 + (
        p[2:, 1:-1] - 2 * p[1:-1, 1:-1] + p[0:-2, 1:-1]) / dy**2
    residual = float(cp.linalg.norm(lap - b[1:-1, 1:-1]) / cp.linalg.norm(b[1:-1, 1:-1]))
    print(f"cupy cavity {n}x{n}, {sweeps} Jacobi sweeps a step: {1e3 * statistics.median(times):.3f} "
          f"ms/step (median of {steps}), pressure residual {residual:.3e} relative")


if __name__ == "__main__":
    main()
