#pragma once
// What a command asks of the force engines (--engine, --launch, the tree parameters given),
// resolved in one place for every command that evaluates forces (`nbody run`, bench, tune,
// potential): the default engine, its registry entry, and the checks of the request against it.
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "physics/tree_params.hpp"

namespace nbody {

struct EngineRequest {
  std::string name;                          // --engine; empty: the default for the precision
  std::string launch;                        // --launch (GPU engines); empty: the tuned shape, else the engine's own
  std::vector<const TreeParam*> tree_given;  // the tree parameters given (rows of tree_params): its tree's only
};

template <class T>
struct ResolvedEngine {
  std::string name;              // as asked, or the default
  const EngineEntry<T>& entry;   // its registry entry (mpi:<engine>: the local engine's)
  std::string launch;
  // The engine for `law`, with the launch shape (InputError where the registry refuses it for the law
  // or the ranks, or the shape is invalid).
  std::unique_ptr<ForceEngine<T>> make(const ForceLaw<T>& law) const;
};

// The engine `r` asks for, in T, for `law`: without a name, the first of the registry, or with
// compensated force sums (law.compensated) the first that has them. InputError where it is not
// one of T's engines, where a tree parameter given is not for its tree, or where it would compute
// every body on every MPI rank.
template <class T>
ResolvedEngine<T> resolve_engine(const EngineRequest& r, const ForceLaw<T>& law);

}  // namespace nbody
