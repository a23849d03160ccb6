/// @file CarryingFlow.hpp
/// @brief The typed interface through which a model that the flow carries finds the flow
/// (ModelSet::find<CarryingFlow>() in its couple()).
#pragma once

#include "fluids/NavierStokes.hpp"

namespace eddy::app {

/// Implemented by the fluids adapter: the flow, to couple a model into its RK stages
/// (fluids::Model::couple) and to read its grid and parameters.
class CarryingFlow {
 public:
  virtual ~CarryingFlow() = default;
  virtual fluids::Model& flow() = 0;
};

}  // namespace eddy::app
