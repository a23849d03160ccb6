/// @file Field.hpp
/// @brief A scalar field on this rank's block of a CartDecomposition, with ghost layers.
///
/// Storage is `Kokkos::View<T***, LayoutLeft, Mem>` (x fastest; T is double unless asked
/// otherwise, e.g. float for single-precision work fields). Local entry (i, j, k), counted from
/// this rank's first owned entry, lives at `view(i + g, j + g, k + gz)` where g is the ghost
/// width and gz = g in 3D, 0 in 2D.
///
/// Cost: sizeof(T) bytes per entry, i.e. sizeof(T) (nx + sx + 2g)(ny + sy + 2g)(nz + sz + 2gz) /
/// (nx ny nz) bytes per owned cell (s = 1 along the face axis of a face-centred field).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace eddy {

/// Where a field's values sit: cell centres or the faces normal to one axis.
///
/// Along its face axis a face-centred field has n + 1 entries: face i is the low face of cell
/// i, face n the high face of the last owned cell. A rank owns faces [0, n), plus face n only at
/// a non-periodic high domain boundary; otherwise face n is a ghost owned by the high neighbour
/// (its face 0).
enum class Centering { Cell, FaceX, FaceY, FaceZ };

/// Axis normal to the faces of `c`, or -1 for cell-centred.
constexpr int faceAxis(Centering c) {
  return c == Centering::FaceX ? 0 : c == Centering::FaceY ? 1 : c == Centering::FaceZ ? 2 : -1;
}

/// "Cell", "FaceX", ... for messages.
inline char const* toString(Centering c) {
  switch (c) {
    case Centering::Cell:
      return "Cell";
    case Centering::FaceX:
      return "FaceX";
    case Centering::FaceY:
      return "FaceY";
    case Centering::FaceZ:
      return "FaceZ";
  }
  return "?";
}

/// A half-open box of local entry indices [lo, hi) (0 = this rank's first owned entry).
struct Box3 {
  Index3 lo{0, 0, 0};
  Index3 hi{0, 0, 0};
  int extent(int axis) const { return hi[axis] - lo[axis]; }
  long long size() const { return static_cast<long long>(extent(0)) * extent(1) * extent(2); }
};

/// A Box3 as plain ints, for kernels: Box3 holds std::arrays, whose operator[] is a host
/// function (nvcc treats a call to it in device code as undefined and may drop the branch that
/// holds it).
struct DeviceBox {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  static DeviceBox of(Box3 const& b) {
    return {{b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}};
  }
  KOKKOS_INLINE_FUNCTION bool contains(int i, int j, int k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
};

/// The field's View with the ghost offset applied: `a(i, j, k)` is local entry (i, j, k).
/// Copy it into kernels. The index arithmetic is 32-bit on a pointer to entry (0, 0, 0) (Field
/// refuses allocations of 2^31 entries or more): with Kokkos' 64-bit View extents a 7-point
/// stencil on a GPU spends more time on index arithmetic than on memory traffic.
template <class Mem, class T = double>
struct GhostedView {
  using value_type = T;
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> view;  ///< keeps the allocation alive
  T* origin = nullptr;                               ///< local entry (0, 0, 0)
  int sy = 0, sz = 0;                                ///< strides of j and k

  GhostedView() = default;
  GhostedView(Kokkos::View<T***, Kokkos::LayoutLeft, Mem> const& v, int gx, int gy, int gz)
      : view(v), sy(static_cast<int>(v.stride(1))), sz(static_cast<int>(v.stride(2))) {
    origin = v.data() +
             (gx + gy * static_cast<std::ptrdiff_t>(sy) + gz * static_cast<std::ptrdiff_t>(sz));
  }
  KOKKOS_INLINE_FUNCTION T& operator()(int i, int j, int k) const {
    return origin[i + j * sy + k * sz];
  }
};

/// The shape of a field on one rank: what a HaloExchange needs to know, without the data.
struct FieldLayout {
  int dims = 3;
  Centering centering = Centering::Cell;
  Index3 cells{1, 1, 1};   ///< owned cells per axis
  Index3 ghosts{1, 1, 1};  ///< ghost width per axis (0 in z for 2D)
  Index3 faces{0, 0, 0};   ///< 1 along the face axis, else 0
  Index3 owned{1, 1, 1};   ///< owned entries per axis: cells + faces at a high domain boundary
  bool operator==(FieldLayout const& o) const {
    return dims == o.dims && centering == o.centering && cells == o.cells && ghosts == o.ghosts &&
           faces == o.faces && owned == o.owned;
  }
  bool operator!=(FieldLayout const& o) const { return !(*this == o); }

  /// The layout of a field with ghost width `ghost` and centering `c` on `decomp`'s rank.
  static FieldLayout make(CartDecomposition const& decomp, int ghost, Centering c,
                          std::string const& label) {
    if (label.rfind("eddy::", 0) != 0)
      throw ConfigError(
          str("Field '", label, "': label must start with 'eddy::' ", "(eddy::<module>::<what>)"));
    if (ghost < 1)
      throw ConfigError(str("Field '", label, "': ghost width ", ghost, ", expected >= 1"));
    int const fa = faceAxis(c);
    if (fa >= decomp.dims())
      throw ConfigError(str("Field '", label, "': centering ", toString(c), " in a ", decomp.dims(),
                            "D decomposition; expected faces normal to x",
                            decomp.dims() == 3 ? ", y or z" : " or y"));
    FieldLayout l;
    l.dims = decomp.dims();
    l.centering = c;
    l.cells = decomp.localCells();
    for (int a = 0; a < 3; ++a) {
      l.ghosts[a] = a < l.dims ? ghost : 0;
      l.faces[a] = a == fa ? 1 : 0;
      l.owned[a] = l.cells[a] + (decomp.isHighBoundary(a) ? l.faces[a] : 0);
    }
    return l;
  }
  /// Entries per axis between the ghost layers (owned plus the shared high face, if any).
  int interior(int axis) const { return cells[axis] + faces[axis]; }
  /// Allocated entries per axis, ghosts included.
  int allocated(int axis) const { return interior(axis) + 2 * ghosts[axis]; }
};

/// A field of T (double unless asked otherwise) on this rank's block, with ghost layers, owned
/// by this container. long long fields hold fixed-point sums (FixedPoint.hpp), whose
/// additions are exact in any order.
///
/// Bytes per owned cell: sizeof(T) (nx + sx + 2g)(ny + sy + 2g)(nz + sz + 2gz) / (nx ny nz).
template <class Mem = MemSpace, class T = double>
class Field {
  static_assert(std::is_floating_point_v<T> || std::is_same_v<T, long long>,
                "Field: the value type must be float, double or long long (fixed-point sums)");

 public:
  using memory_space = Mem;
  using value_type = T;
  using view_type = Kokkos::View<T***, Kokkos::LayoutLeft, Mem>;

  /// Allocates (zero-filled on `space`) a field named `label` (`eddy::<module>::<what>`) on
  /// `decomp`'s block of this rank.
  template <class Exec>
  Field(Exec const& space, std::string label, CartDecomposition const& decomp, int ghost,
        Centering centering = Centering::Cell)
      : m_label(std::move(label)),
        m_layout(FieldLayout::make(decomp, ghost, centering, m_label)),
        m_offset(decomp.offset()) {
    long long const entries = static_cast<long long>(m_layout.allocated(0)) *
                              m_layout.allocated(1) * m_layout.allocated(2);
    if (entries >= (1ll << 31))
      throw ConfigError(str("Field '", m_label, "': ", toString(m_layout.cells),
                            " cells per rank with ghosts need ", entries,
                            " entries, more than the 2^31 - 1 a field indexes; use more ranks"));
    m_view = view_type(Kokkos::view_alloc(space, m_label), m_layout.allocated(0),
                       m_layout.allocated(1), m_layout.allocated(2));
  }
  /// As above on a default instance of the memory space's execution space.
  Field(std::string label, CartDecomposition const& decomp, int ghost,
        Centering centering = Centering::Cell)
      : Field(typename Mem::execution_space(), std::move(label), decomp, ghost, centering) {}
  /// A field named `label` with `storage`'s layout over `storage`'s memory (U at least as wide
  /// as T, so the entries fit): a work field that borrows the memory of another field while
  /// that one's values are not needed. Writing either overwrites the other. The allocation
  /// stays alive as long as this field does.
  template <class U>
  Field(std::string label, Field<Mem, U> const& storage)
      : m_label(std::move(label)),
        m_layout(storage.layout()),
        m_offset(storage.globalOffset()),
        m_storage(std::make_shared<typename Field<Mem, U>::view_type>(storage.view())) {
    static_assert(sizeof(T) <= sizeof(U), "Field: a borrowed storage holds narrower entries only");
    if (m_label.rfind("eddy::", 0) != 0)
      throw ConfigError(
          str("Field '", m_label, "': label must start with 'eddy::' (eddy::<module>::<what>)"));
    m_view = view_type(reinterpret_cast<T*>(storage.view().data()), m_layout.allocated(0),
                       m_layout.allocated(1), m_layout.allocated(2));
  }

  std::string const& label() const { return m_label; }
  FieldLayout const& layout() const { return m_layout; }
  int dims() const { return m_layout.dims; }
  Centering centering() const { return m_layout.centering; }
  /// Axis normal to the faces, -1 for cell-centred.
  int faceAxis() const { return eddy::faceAxis(m_layout.centering); }
  /// Ghost width in x and y (and z in 3D).
  int ghost() const { return m_layout.ghosts[0]; }
  /// Ghost width per axis (z is 0 in 2D).
  Index3 const& ghosts() const { return m_layout.ghosts; }
  /// Owned cells per axis.
  Index3 const& cells() const { return m_layout.cells; }
  /// Global index of local entry 0 per axis (the rank's first cell / its low face).
  Index3 const& globalOffset() const { return m_offset; }

  /// Owned entries: [0, n) per axis, [0, n + 1) along the face axis at a non-periodic high
  /// domain boundary.
  Box3 ownedBox() const { return Box3{{0, 0, 0}, m_layout.owned}; }
  /// Every allocated entry, ghosts included: [-g, n + s + g) per axis.
  Box3 allocatedBox() const {
    Box3 b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = -m_layout.ghosts[a];
      b.hi[a] = m_layout.interior(a) + m_layout.ghosts[a];
    }
    return b;
  }
  /// Allocated extents of the View per axis.
  Index3 extents() const {
    return Index3{m_layout.allocated(0), m_layout.allocated(1), m_layout.allocated(2)};
  }
  /// Bytes held by the View.
  std::size_t bytes() const { return m_view.span() * sizeof(T); }

  /// The raw View: local entry (i, j, k) at (i + g, j + g, k + gz).
  view_type const& view() const { return m_view; }
  /// The View with the ghost offset applied, for kernels.
  GhostedView<Mem, T> access() const {
    return GhostedView<Mem, T>(m_view, m_layout.ghosts[0], m_layout.ghosts[1], m_layout.ghosts[2]);
  }

 private:
  std::string m_label;
  FieldLayout m_layout;
  Index3 m_offset;
  view_type m_view;
  std::shared_ptr<void const> m_storage;  ///< a borrowed allocation, kept alive
};

}  // namespace eddy
