// Host replica of cuda-octree-groups' groups (kernels/cuda/octree.cuh node_groups) and of the cost
// of each group's walk (the opening rule against the group's box): which groups are expensive, and
// what the whole walk costs. A warp pays each term of its group's walk once for all its lanes, so
// the walk's cost is the sum over groups of their terms (warp-terms), against the terms the bodies
// need (body-terms).
// Usage: groups N SEED [THETA [PACK_LIMIT [LEAF [GROUP]]]]: small siblings packed only under parents
// of at most PACK_LIMIT bodies (default: no limit, as at 7ecc4d4; 256 as at c4f8035, 8 GROUP after;
// 0: groups are runs of GROUP consecutive bodies in key order instead of cells), leaves of at most
// LEAF bodies (default 16), groups of at most GROUP bodies (default 32; 64 is two per lane).
// Built against a build tree of the solver:
//   g++ -O2 -std=c++20 -fopenmp -Isolver -Ikernels -Ibuild/generated groups_host_replica.cpp \
//       build/libnbody_core.a -lquadmath -o groups
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "engines/octree/tree.hpp"
#include "physics/initial_conditions.hpp"
using namespace nbody;
using T = float;
int main(int argc, char** argv) {
  IcParams p; p.name = "plummer"; p.n = std::stoul(argv[1]); p.seed = std::stoul(argv[2]);
  const float theta = argc > 3 ? std::stof(argv[3]) : 0.7f;
  const unsigned pack_limit = argc > 4 ? std::stoul(argv[4]) : ~0u;
  const unsigned leaf = argc > 5 ? std::stoul(argv[5]) : 16, G = argc > 6 ? std::stoul(argv[6]) : 32;
  State<T> s = make_initial_state<T>(p);
  TreeOptions o; o.theta = theta;
  octree::Tree<T> t;
  octree::build_octree(s.y.data(), s.mass.data(), s.size(), o, leaf, t);
  const unsigned m = t.first.size(), n = t.bx.size();
  struct Group { unsigned f, e, node; };
  std::vector<Group> groups;
  if (pack_limit == 0)
    for (unsigned b = 0; b < n; b += G) groups.push_back({b, std::min(b + G, n), 0});
  else
    for (unsigned i = 0; i < m; ++i) {
      const unsigned size = t.end[i] - t.first[i];
      auto emit = [&](unsigned f, unsigned e) { groups.push_back({f, e, i}); };
      if (size <= G) { if (i == 0) emit(t.first[i], t.end[i]); continue; }
      if (t.nchild[i] == 0) { for (unsigned b = t.first[i]; b < t.end[i]; b += G) emit(b, std::min(b + G, t.end[i])); continue; }
      unsigned of = 0, oe = 0;
      for (unsigned k = t.child[i]; k < t.child[i] + t.nchild[i]; ++k) {
        const unsigned f = t.first[k], e = t.end[k];
        const bool small = e - f <= G;
        if (oe > of && (!small || oe - of + (e - f) > G || size > pack_limit)) emit(of, oe), of = oe = 0;
        if (!small) continue;
        if (oe == of) of = f;
        oe = e;
      }
      if (oe > of) emit(of, oe);
    }
  struct Cost { double terms; unsigned g; float extent; };
  std::vector<Cost> cost;
  double total = 0, body_terms = 0;
  for (unsigned g = 0; g < groups.size(); ++g) {
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (unsigned b = groups[g].f; b < groups[g].e; ++b) {
      const float c[3] = {t.bx[b], t.by[b], t.bz[b]};
      for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], c[d]), hi[d] = std::max(hi[d], c[d]);
    }
    double terms = 0;
    std::vector<unsigned> stack{0};
    while (!stack.empty()) {
      const unsigned i = stack.back(); stack.pop_back();
      float d2 = 0;
      for (int d = 0; d < 3; ++d) { const float x = t.node[4 * i + d]; const float q = x < lo[d] ? lo[d] - x : x > hi[d] ? x - hi[d] : 0; d2 += q * q; }
      if (d2 > t.node[4 * i + 3]) terms += 1;
      else if (t.nchild[i] == 0) terms += t.end[i] - t.first[i];
      else for (unsigned c = 0; c < t.nchild[i]; ++c) stack.push_back(t.child[i] + c);
    }
    float ext = 0; for (int d = 0; d < 3; ++d) ext = std::max(ext, hi[d] - lo[d]);
    cost.push_back({terms, g, ext});
    total += terms;
    body_terms += terms * (groups[g].e - groups[g].f);
  }
  std::sort(cost.begin(), cost.end(), [](auto& a, auto& b) { return a.terms > b.terms; });
  std::printf("n %u seed %s theta %.2f leaf %u group %u %s: %zu groups of %.1f bodies on average; mean terms per group %.0f, "
              "warp-terms %.4g, body-terms per body %.0f\n", n, argv[2], theta, leaf, G,
              pack_limit == 0 ? "key-order runs" : ("cells, pack under " + std::to_string(pack_limit)).c_str(), groups.size(),
              double(n) / groups.size(), total / groups.size(), total, body_terms / n);
  for (int k = 0; k < 3; ++k) {
    const auto& c = cost[k]; const auto& g = groups[c.g];
    std::printf("  group %u: %u bodies, node %u (level %u, %u bodies, %u children), extent %.3g, terms %.0f\n", c.g, g.e - g.f, g.node, t.level[g.node], t.end[g.node] - t.first[g.node], t.nchild[g.node], c.extent, c.terms);
  }
}
