#include "engines/request.hpp"

#include <algorithm>

#include "core/real.hpp"
#include "core/registry.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

namespace {

// Under mpiexec with several ranks every rank would run the whole computation with a local
// engine: refused, saying how to distribute it.
void check_ranks(std::string_view engine, const EngineCapabilities& can) {
  if (mpi::size() > 1 && local_engine_name(engine) == engine && !can.distributed)
    throw InputError("under mpiexec (" + std::to_string(mpi::size()) + " ranks) give --engine mpi:" + std::string(engine) +
                     " (or mpi-ring:" + std::string(engine) + "): each rank then computes its block of the bodies; " +
                     "with --engine " + std::string(engine) + " every rank would compute all of them" +
                     (can.tree == TreeKind::octree ? "; or --engine mpi-octree, the tree distributed over the ranks" : ""));
}

// The tree parameters belong to the engines of their trees: refused, naming them all, with any
// other engine.
void check_tree_params(const std::vector<const TreeParam*>& given, TreeKind tree, std::string_view engine) {
  if (std::all_of(given.begin(), given.end(), [&](const TreeParam* p) { return steers(*p, tree); })) return;
  std::vector<std::string_view> theirs, ours;  // the flags of the other trees, and this tree's
  unsigned others = 0;
  for (const TreeParam& p : tree_params) {
    (steers(p, tree) ? ours : theirs).push_back(p.flag);
    if (!steers(p, tree)) others |= p.trees;
  }
  const std::string name(engine);
  if (tree == TreeKind::none)
    throw InputError(sentence_list(theirs, "and") + " are for the tree engines (`nbody list engines`); '" + name +
                     "' sums all pairs");
  const std::string noun(tree_noun(tree));
  throw InputError(sentence_list(theirs, "and") + " are for the " + trees_text(others) + " engines; '" + name + "' walks " +
                   (std::string_view("aeiou").find(noun[0]) != std::string_view::npos ? "an " : "a ") + noun + ": " +
                   comma_list(ours));
}

}  // namespace

template <class T>
std::unique_ptr<ForceEngine<T>> ResolvedEngine<T>::make(const ForceLaw<T>& law) const {
  auto engine = make_engine<T>(name, law);
  engine->set_launch(launch);
  return engine;
}

template <class T>
ResolvedEngine<T> resolve_engine(const EngineRequest& r, const ForceLaw<T>& law) {
  std::string name = r.name;
  for (const auto& e : engine_table<T>())
    if (name.empty() && (!law.compensated || e.can.compensated_forces)) name = e.name;
  const EngineEntry<T>& entry = find_engine<T>(name);
  check_ranks(name, entry.can);
  check_tree_params(r.tree_given, entry.can.tree, name);
  return {name, entry, r.launch};
}

#define NBODY_INSTANTIATE(T)        \
  template struct ResolvedEngine<T>; \
  template ResolvedEngine<T> resolve_engine<T>(const EngineRequest&, const ForceLaw<T>&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
