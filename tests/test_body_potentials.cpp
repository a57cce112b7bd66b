// Each body's potential from the others (ForceEngine::body_potentials, engines/engine.hpp): every
// engine of the registry in every precision it runs in against an exact reference written out here
// (the pair sum in double-double or quad-double, i < j, so no body meets itself): the direct sums
// to rounding, the trees opening every node to rounding, at a tight opening to ~1e-5 and at their
// defaults to about their force error, the octree's quadrupoles better than its monopoles; with
// softening and S0's clamp; one body and none; the energy 1/2 sum m_i phi_i against the pair sum.
// The octree's node term against the gradient of its potential; mpi:<engine> as its local engine;
// on a GPU the compensated kernel where compensation matters, and potentials between
// device-resident steps, which must change no bit of the run. Engines whose device is missing are
// skipped with a message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/octree.hpp"
#include "core/real.hpp"
#include "driver/simulation.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

// The reference's type: double-double for float and double, quad-double beyond.
template <class T>
using Exact = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, dd, qd>;

// x in R without rounding (four doubles hold every type here).
template <class R, class T>
R exactly(const T& x) {
  R r(0.0);
  T rest = x;
  for (int k = 0; k < 4; ++k) {
    const double d = to_d(rest);
    r = r + R(d);
    rest = rest - T(d);
  }
  return r;
}

// phi_i = -G sum_{j != i} m_j k(|x_j - x_i|) summed over the pairs i < j in R, and the potential
// energy -G sum_{i<j} m_i m_j k, the pair sum.
template <class R>
struct Reference {
  std::vector<R> phi;
  R energy;
};
template <class T, class R = Exact<T>>
Reference<R> exact_potentials(const Bodies<T>& b, const ForceLaw<T>& law) {
  const std::size_t n = b.n;
  std::vector<R> x(3 * n), m(n), phi(n, R(0.0));
  for (std::size_t k = 0; k < 3 * n; ++k) x[k] = exactly<R>(b.pos[k]);
  for (std::size_t i = 0; i < n; ++i) m[i] = exactly<R>(b.mass[i]);
  const R eps2 = exactly<R>(law.eps2), rmin2 = exactly<R>(law.rmin2), G = exactly<R>(law.G);
  R pairs(0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const R k = pair_potential_kernel(x[j] - x[i], x[n + j] - x[n + i], x[2 * n + j] - x[2 * n + i], eps2, rmin2);
      phi[i] = phi[i] + m[j] * k;
      phi[j] = phi[j] + m[i] * k;
      pairs = pairs + m[i] * m[j] * k;
    }
  for (R& p : phi) p = -G * p;
  return {phi, -G * pairs};
}

// The relative errors of phi against the reference: worst and median body, and of the energy.
struct Errors {
  double worst = 0, median = 0, energy = 0;
};
template <class T, class R>
Errors errors_of(const Bodies<T>& b, const std::vector<T>& phi, const Reference<R>& ref) {
  std::vector<double> e(b.n);
  R energy(0.0);
  for (std::size_t i = 0; i < b.n; ++i) {
    const R p = exactly<R>(phi[i]);
    e[i] = std::abs(to_d((p - ref.phi[i]) / ref.phi[i]));
    energy = energy + exactly<R>(b.mass[i]) * p;
  }
  Errors out;
  out.worst = *std::max_element(e.begin(), e.end());
  std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
  out.median = e[e.size() / 2];
  out.energy = std::abs(to_d((energy / R(2.0) - ref.energy) / ref.energy));
  return out;
}

// The body potentials of an engine, every element poisoned first (all must be written).
template <class T>
std::vector<T> body_potentials(ForceEngine<T>& engine, const Bodies<T>& b) {
  std::vector<T> phi(b.n, T(12345.0));
  engine.body_potentials(b.pos.data(), b.mass.data(), b.n, phi.data());
  return phi;
}

// Plummer spheres: a few thousand bodies in the built-in types, fewer in the software ones, whose
// reference in quad-double costs microseconds a pair.
template <class T>
std::size_t sphere_size() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return 3001;
  else if constexpr (std::is_same_v<T, dd>) return 1001;
  else if constexpr (std::is_same_v<T, mp50>) return 101;
  else return 301;
}

// Plain Newton, softening (G != 1), S0's clamp with a radius that many pairs are inside.
template <class T>
std::vector<ForceLaw<T>> potential_laws() {
  ForceLaw<T> plain, softened, clamped;
  softened.eps2 = T(1e-4);
  softened.G = T(0.5);
  clamped.rmin2 = T(1e-4);
  clamped.G = T(2.5);
  return {plain, softened, clamped};
}

// A tree's opening: every node opened (a direct sum), tight, or the engines' defaults.
enum class Opening { every_node, tight, defaults };
template <class T>
ForceLaw<T> opened(ForceLaw<T> law, Opening o) {
  if (o == Opening::every_node) law.tree.theta = 0, law.tree.lambda_crit = std::numeric_limits<double>::infinity();
  if (o == Opening::tight) law.tree.theta = 0.1, law.tree.lambda_crit = 64;
  return law;
}
const char* opening_name(Opening o) { return o == Opening::every_node ? "every node" : o == Opening::tight ? "tight" : "defaults"; }

// What the engine reported of its last evaluation, which a potential must leave as it was.
template <class T>
std::string last_evaluation(const ForceEngine<T>& e) {
  const TreeProfile p = e.last_tree_profile();
  std::ostringstream text;
  text << e.device_info() << " | " << e.last_device_seconds() << " | " << p.build_seconds << " " << p.walk_seconds << " "
       << p.terms_per_body << " " << p.cell_terms_per_body << " " << p.moments_seconds << " " << p.shape.nodes << " "
       << p.shape.leaves << " " << p.root_mass;
  return text.str();
}

}  // namespace

TEMPLATE_TEST_CASE("every_engines_body_potentials_equal_the_exact_direct_sum_to_its_force_accuracy",
                   "[potential][engines][gpu]", float, double, dd, qd, quad, mp50) {
  using T = TestType;
  const Bodies<T> b = plummer_bodies<T>(sphere_size<T>(), 17);
  const double rounding = engine_tolerance<T>();
  for (const ForceLaw<T>& law : potential_laws<T>()) {
    const auto ref = exact_potentials(b, law);
    std::vector<T> direct(b.n);
    direct_body_potentials(law, b.pos.data(), b.mass.data(), b.n, direct.data());
    for (const auto& e : engine_table<T>()) {
      if (!runnable(e)) continue;
      const bool tree = e.can.potentials == Potentials::tree;
      for (Opening o : {Opening::every_node, Opening::tight, Opening::defaults}) {
        if (!tree && o != Opening::every_node) continue;
        const ForceLaw<T> l = opened(law, o);
        auto engine = make_engine<T>(e.name, l);
        INFO(e.name << " in " << RealTraits<T>::name << ", n " << b.n << ", G " << to_d(l.G) << ", eps2 " << to_d(l.eps2)
                    << ", rmin2 " << to_d(l.rmin2) << (tree ? std::string(", opening ") + opening_name(o) : "") << ": "
                    << engine->body_potential_method());
        if (tree || e.can.device != Device::cpu) {  // engines that report their last evaluation
          std::vector<T> a(3 * b.n);
          engine->accelerations(b.pos.data(), b.mass.data(), b.n, a.data());
        }
        const std::string before = last_evaluation(*engine);
        const std::vector<T> phi = body_potentials(*engine, b);
        CHECK(last_evaluation(*engine) == before);
        const Errors err = errors_of(b, phi, ref);
        INFO("worst " << err.worst << ", median " << err.median << ", energy " << err.energy);
        switch (e.can.potentials) {
          case Potentials::direct_cpu:  // the base class's sum
            CHECK(phi == direct);
            CHECK_THAT(engine->body_potential_method(), Catch::Contains("direct sum on the CPU"));
            break;
          case Potentials::direct_device:
            CHECK(e.can.device != Device::cpu);
            CHECK_THAT(engine->body_potential_method(), Catch::Contains("direct sum on the GPU"));
            break;
          case Potentials::tree:
            CHECK(e.can.tree != TreeKind::none);
            CHECK_THAT(engine->body_potential_method(),
                       Catch::Contains(e.can.tree == TreeKind::octree ? "octree walk" : "kd-tree walk") &&
                           Catch::Contains(e.can.device == Device::cpu ? "on the CPU" : "on the GPU"));
            break;
        }
        if (o == Opening::every_node) {  // sums over all other bodies: rounding apart
          // A walk per group (*-groups) adds a body's terms in batches of nodes and of leaves: twice
          // the rounding allowed, as for its forces.
          const double bound = rounding * (e.name.ends_with("-groups") ? 2 : 1);
          CHECK(err.worst <= bound);
          CHECK(err.energy <= bound);
        } else if (o == Opening::tight) {
          CHECK(err.worst <= 5e-5);
          CHECK(err.median <= 1e-5);
          CHECK(err.energy <= 1e-6);
        } else {
          CHECK(err.worst <= 1e-2);
          CHECK(err.median <= 2e-3);
          CHECK(err.energy <= 2e-3);
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("every_engines_body_potential_of_one_body_is_zero_and_of_none_writes_nothing", "[potential][engines][gpu]",
                   float, double, dd, qd, quad, mp50) {
  using T = TestType;
  const std::vector<T> pos = {T(0.25), T(-0.5), T(1.0)}, mass = {T(2.0)};
  for (ForceLaw<T> law : potential_laws<T>()) {
    for (const auto& e : engine_table<T>()) {
      if (!runnable(e)) continue;
      INFO(e.name << " in " << RealTraits<T>::name << ", eps2 " << to_d(law.eps2) << ", rmin2 " << to_d(law.rmin2));
      auto engine = make_engine<T>(e.name, law);
      T phi(12345.0);
      engine->body_potentials(pos.data(), mass.data(), 0, &phi);
      CHECK(to_d(phi) == 12345.0);
      engine->body_potentials(pos.data(), mass.data(), 1, &phi);
      CHECK(to_d(phi) == 0.0);
    }
  }
}

TEMPLATE_TEST_CASE("the_octree_potential_error_falls_as_theta_shrinks_and_quadrupoles_lower_it", "[potential][tree][gpu]", float,
                   double) {
  // A quadrupole term of the wrong sign or size would make the quadrupoles worse than monopoles.
  using T = TestType;
  const Bodies<T> b = plummer_bodies<T>(4099, 5);
  const ForceLaw<T> plain;
  const auto ref = exact_potentials(b, plain);
  for (const auto& e : engine_table<T>()) {
    if (e.can.tree != TreeKind::octree || e.can.potentials != Potentials::tree || !runnable(e)) continue;
    double previous[2] = {1, 1};
    for (double theta : {1.0, 0.7, 0.5, 0.3}) {
      double median[2];
      for (bool quadrupole : {false, true}) {
        ForceLaw<T> law = plain;
        law.tree.theta = theta;
        law.tree.quadrupole = quadrupole;
        const Errors err = errors_of(b, body_potentials(*make_engine<T>(e.name, law), b), ref);
        INFO(e.name << " in " << RealTraits<T>::name << ", theta " << theta << (quadrupole ? " quadrupoles" : " monopoles")
                    << ": median " << err.median << ", worst " << err.worst);
        CHECK(err.median < previous[quadrupole]);
        previous[quadrupole] = median[quadrupole] = err.median;
      }
      CHECK(median[1] < 0.5 * median[0]);
    }
  }
}

TEST_CASE("an_octree_nodes_potential_term_has_its_force_term_as_gradient", "[potential][tree]") {
  // a = -grad phi with phi = -G k: the force's node term (before G) is the gradient of the
  // potential's k in the body's position, quadrupole, softening and all.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 50; ++trial) {
    // A node: its mass and traceless quadrupole about its centre of mass (from a few bodies).
    double m = 0, c[3] = {0, 0, 0}, q[6] = {0, 0, 0, 0, 0, 0};
    double px[5][4];
    for (auto& p : px) {
      p[3] = 0.5 + 0.5 * u(rng);
      for (int d = 0; d < 3; ++d) p[d] = 0.3 * u(rng);
      m += p[3];
      for (int d = 0; d < 3; ++d) c[d] += p[3] * p[d];
    }
    for (double& x : c) x /= m;
    for (const auto& p : px) {
      const double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2], d2 = dx * dx + dy * dy + dz * dz;
      q[0] += p[3] * (3 * dx * dx - d2), q[1] += p[3] * (3 * dy * dy - d2), q[2] += p[3] * (3 * dz * dz - d2);
      q[3] += p[3] * 3 * dx * dy, q[4] += p[3] * 3 * dx * dz, q[5] += p[3] * 3 * dy * dz;
    }
    const double r[3] = {c[0] + 2 * u(rng), c[1] + 2 * u(rng), c[2] + 2 + u(rng)};  // a body well outside the node
    const double eps2 = trial % 2 ? 1e-2 : 0;
    for (const double* quad : {static_cast<const double*>(nullptr), static_cast<const double*>(q)}) {
      auto k = [&](const double* at) {
        PotentialSum<double> s;
        octree::add_node(s, m, quad, c[0] - at[0], c[1] - at[1], c[2] - at[2], eps2, 0.0);
        return s.k;
      };
      AccelerationSum<double> a;
      octree::add_node(a, m, quad, c[0] - r[0], c[1] - r[1], c[2] - r[2], eps2, 0.0);
      const double force[3] = {a.x, a.y, a.z};
      const double size = std::hypot(a.x, a.y, a.z), h = 1e-5;
      for (int d = 0; d < 3; ++d) {
        double up[3] = {r[0], r[1], r[2]}, down[3] = {r[0], r[1], r[2]};
        up[d] += h, down[d] -= h;
        const double gradient = (k(up) - k(down)) / (2 * h);
        INFO("trial " << trial << (quad ? ", quadrupole" : ", monopole") << ", axis " << d << ": gradient " << gradient
                      << ", force term " << force[d]);
        CHECK(std::abs(gradient - force[d]) <= 1e-7 * size);
      }
    }
  }
}

TEST_CASE("mpi_engines_body_potentials_are_their_local_engines", "[potential][engines][mpi]") {
  const Bodies<double> b = plummer_bodies<double>(333, 5);
  ForceLaw<double> law;
  law.eps2 = 1e-4;
  for (const auto& e : engine_table<double>()) {
    if (!(e.can.block_forces || e.can.pass_forces) || !runnable(e)) continue;
    auto local = make_engine<double>(e.name, law);
    auto over_ranks = make_engine<double>("mpi:" + std::string(e.name), law);
    INFO(e.name);
    CHECK(same_bits(body_potentials(*over_ranks, b), body_potentials(*local, b)));
    CHECK(over_ranks->body_potential_method() == local->body_potential_method());
  }
}

TEST_CASE("the_compensated_gpu_potential_is_closer_to_the_exact_sum_than_the_plain_one", "[potential][gpu][cuda]") {
  // Float: one body of unit mass, then many of 1e-8, each of whose terms is below half an ulp of a
  // sum that holds the large one's: a plain sum loses most of them, some 1e-4 of the potential.
  if (!have_cuda_device("the compensated GPU potential")) return;
  const std::size_t n = 8000;
  Bodies<float> b = plummer_bodies<float>(n, 9);
  b.mass.assign(n, 1e-8f);
  b.mass[0] = 1;
  b.pos[0] = b.pos[n] = b.pos[2 * n] = 0;
  const ForceLaw<float> plain;
  const auto ref = exact_potentials(b, plain);
  for (const auto& e : engine_table<float>()) {
    if (e.can.potentials != Potentials::direct_device) continue;
    ForceLaw<float> compensated = plain;
    compensated.compensated = true;  // not through make_engine, which refuses GPU engines compensated forces
    auto with = e.make(compensated);
    auto without = e.make(plain);
    const Errors sum = errors_of(b, body_potentials(*with, b), ref);
    const Errors plain_sum = errors_of(b, body_potentials(*without, b), ref);
    INFO(e.name << ": compensated worst " << sum.worst << ", plain worst " << plain_sum.worst);
    CHECK_THAT(with->body_potential_method(), Catch::Contains("compensated"));
    CHECK_THAT(without->body_potential_method(), !Catch::Contains("compensated"));
    CHECK(plain_sum.worst > 2e-5);
    CHECK(sum.worst < 1e-6);
  }
}

#if NBODY_WITH_CUDA
TEST_CASE("body_potentials_between_device_resident_steps_change_no_bit_of_the_run", "[potential][gpu][resident]") {
  // The steps stay on the device between samples; at each sample the engine evaluates the bodies'
  // potentials. The run must be the one without them, bit for bit; the potentials must be a fresh
  // engine's of the same state, and the engine's report of its last evaluation stays as it was.
  if (!have_cuda_device("body potentials between device-resident steps")) return;
  for (const auto& e : engine_table<double>()) {
    if (e.can.device != Device::cuda || !e.make(ForceLaw<double>{})->resident()) continue;
    for (bool quadrupole : {false, true}) {
      if (quadrupole && e.can.tree != TreeKind::octree) continue;
      ForceLaw<double> law;
      law.eps2 = 1e-4;
      law.tree.quadrupole = quadrupole;
      const std::string integrator = e.can.tree == TreeKind::octree ? "leapfrog" : "rk4";
      INFO(e.name << " with " << integrator << (quadrupole ? ", quadrupoles" : ""));
      StepOptions<double> opt = fixed_step(1e-3);
      opt.stepping = Stepping::device;
      const State<double> start = plummer<double>(1031, 7);
      auto run = [&](bool potentials) {
        test::Driven<double> sim(start, law, std::string(e.name), integrator, opt);
        std::size_t samples = 0;
        sim.run(0.05, 0.005, [&](const Sample<double>&) {
          if (!potentials) return;
          const State<double>& s = sim.state();
          const std::string before = last_evaluation(sim.engine());
          std::vector<double> phi(s.size()), fresh(s.size());
          sim.engine().body_potentials(s.y.data(), s.mass.data(), s.size(), phi.data());
          CHECK(last_evaluation(sim.engine()) == before);
          make_engine<double>(e.name, law)->body_potentials(s.y.data(), s.mass.data(), s.size(), fresh.data());
          CHECK(same_bits(phi, fresh));
          ++samples;
        });
        CHECK(sim.engine().device_info().find("steps on the device") != std::string::npos);
        return std::make_tuple(sim.state().y, sim.force_evaluations(), sim.counters().steps, samples);
      };
      const auto [y, evaluations, steps, none] = run(false);
      const auto [y_with, evaluations_with, steps_with, samples] = run(true);
      CHECK(samples >= 10);
      CHECK(same_bits(y_with, y));
      CHECK(evaluations_with == evaluations);
      CHECK(steps_with == steps);
    }
  }
}
#endif
