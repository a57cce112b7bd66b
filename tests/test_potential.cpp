// The potential at points (engines/engine.hpp: direct_potentials and each engine's potentials(),
// `nbody potential`): exact for one body, minus the gradient equal to the engines' accelerations,
// a Plummer sphere's field against the analytic one, the CUDA engines against the CPU's sum (on a
// GPU), and the grid the command writes.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

// Targets (3m, SoA) at the given points.
template <class T>
std::vector<T> soa(const std::vector<std::array<double, 3>>& points) {
  const std::size_t m = points.size();
  std::vector<T> at(3 * m);
  for (std::size_t i = 0; i < m; ++i)
    for (int d = 0; d < 3; ++d) at[d * m + i] = T(points[i][d]);
  return at;
}

std::vector<std::array<double, 3>> random_points(std::size_t m, double half, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-half, half);
  std::vector<std::array<double, 3>> p(m);
  for (auto& x : p) x = {u(rng), u(rng), u(rng)};
  return p;
}

}  // namespace

TEST_CASE("the_potential_of_one_body_is_minus_G_m_over_the_softened_distance", "[potential]") {
  ForceLaw<double> law;
  law.G = 1.5, law.eps2 = 0.01;
  const std::vector<double> pos = {0.1, 0.2, 0.3}, mass = {2.0};
  const auto points = random_points(50, 2.0, 1);
  const std::vector<double> at = soa<double>(points);
  std::vector<double> phi(points.size());
  direct_potentials(law, pos.data(), mass.data(), 1, at.data(), points.size(), phi.data());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double dx = 0.1 - points[i][0], dy = 0.2 - points[i][1], dz = 0.3 - points[i][2];
    CHECK(phi[i] == -1.5 * 2.0 * (1.0 / std::sqrt(dx * dx + dy * dy + dz * dz + 0.01)));
  }
}

TEST_CASE("minus_the_gradient_of_the_potential_is_the_engines_acceleration", "[potential]") {
  // A probe of zero mass among the bodies feels the field; the potential's central differences
  // must give it, softening and the clamp included.
  const std::size_t n = 300;
  for (const auto& [eps2, rmin2] : {std::pair{1e-4, 0.0}, {0.0, 0.01}}) {
    ForceLaw<double> law;
    law.eps2 = eps2, law.rmin2 = rmin2;
    const Bodies<double> b = plummer_bodies<double>(n, 3);
    for (const auto& p : random_points(20, 0.8, 2)) {
      INFO("eps2 " << eps2 << ", rmin2 " << rmin2 << ", point " << p[0] << " " << p[1] << " " << p[2]);
      State<double> s(n + 1);
      for (std::size_t i = 0; i < n; ++i) {
        s.mass[i] = b.mass[i];
        for (int d = 0; d < 3; ++d) s.pos(d)[i] = b.pos[d * n + i];
      }
      for (int d = 0; d < 3; ++d) s.pos(d)[n] = p[d];
      s.mass[n] = 0;
      const std::vector<double> a = accelerations("simple", s, law);
      const double h = 1e-5;
      std::vector<std::array<double, 3>> around;
      for (int d = 0; d < 3; ++d)
        for (double sign : {1.0, -1.0}) {
          auto q = p;
          q[d] += sign * h;
          around.push_back(q);
        }
      const std::vector<double> at = soa<double>(around);
      std::vector<double> phi(6);
      direct_potentials(law, b.pos.data(), b.mass.data(), n, at.data(), 6, phi.data());
      const double scale = std::hypot(a[n], a[(n + 1) + n], a[2 * (n + 1) + n]) + 1;
      for (int d = 0; d < 3; ++d) {
        const double gradient = (phi[2 * d] - phi[2 * d + 1]) / (2 * h);
        CHECK(std::abs(-gradient - a[d * (n + 1) + n]) < 1e-6 * scale);
      }
    }
  }
}

TEST_CASE("a_plummer_spheres_potential_is_the_analytic_one_within_its_sampling_noise", "[potential]") {
  // Henon units: M = G = 1, Plummer radius a = 3 pi / 16; phi(r) = -1 / sqrt(r^2 + a^2).
  const std::size_t n = 20000;
  const Bodies<double> b = plummer_bodies<double>(n, 11);
  const double a = 3 * M_PI / 16;
  std::vector<std::array<double, 3>> points;
  for (double r : {0.0, 0.2, 0.5, 1.0, 2.0, 4.0})
    for (const auto& dir : std::vector<std::array<double, 3>>{{1, 0, 0}, {0, -1, 0}, {0, 0.6, 0.8}})
      points.push_back({r * dir[0], r * dir[1], r * dir[2]});
  const std::vector<double> at = soa<double>(points);
  std::vector<double> phi(points.size());
  direct_potentials(ForceLaw<double>{}, b.pos.data(), b.mass.data(), n, at.data(), points.size(), phi.data());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double r = std::hypot(points[i][0], points[i][1], points[i][2]), exact = -1 / std::sqrt(r * r + a * a);
    INFO("r = " << r);
    CHECK(std::abs(phi[i] / exact - 1) < 0.03);
  }
}

TEMPLATE_TEST_CASE("the_cuda_engines_potential_equals_the_cpus_sum", "[potential][gpu]", float, double, dd) {
  using T = TestType;
  if (!have_cuda_device("the CUDA potential")) return;
  const double tolerance = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-13 : 1e-28;
  for (std::size_t n : {1, 5, 127, 128, 129, 3001}) {
    const Bodies<T> b = plummer_bodies<T>(n, 4);
    ForceLaw<T> law;
    law.G = T(0.7), law.eps2 = T(1e-4), law.rmin2 = n == 127 ? T(0.01) : T(0);
    for (std::size_t m : {1, 130, 2000}) {
      INFO("n " << n << ", m " << m);
      const std::vector<T> at = soa<T>(random_points(m, 1.5, n + m));
      std::vector<T> cpu(m), gpu(m, T(12345));
      direct_potentials(law, b.pos.data(), b.mass.data(), n, at.data(), m, cpu.data());
      for (const auto& entry : engine_table<T>()) {  // the CUDA all-pairs engines of T
        if (entry.can.device != Device::cuda || entry.can.tree != TreeKind::none) continue;
        INFO(entry.name);
        auto engine = entry.make(law);
        engine->potentials(b.pos.data(), b.mass.data(), n, at.data(), m, gpu.data());
        CHECK_THAT(engine->potential_method(), Catch::Contains("on the GPU"));
        double worst = 0;
        for (std::size_t i = 0; i < m; ++i) worst = std::max(worst, std::abs(static_cast<double>((gpu[i] - cpu[i]) / cpu[i])));
        CHECK(worst < tolerance);
      }
    }
  }
}

TEST_CASE("nbody_potential_writes_the_grid_nodes_and_their_potential", "[potential][cli]") {
  const auto dir = scratch("potential_cli");
  REQUIRE(run_nbody(dir, "potential --ic plummer --n 500 --seed 2 --eps 0.01 --plane xz --at 0.5 --resolution 5 --extent 1 "
                         "--centre 0,0,0 --out p.csv --summary s.json")
              .exit_code == 0);
  std::ifstream in(dir / "p.csv");
  std::string line;
  std::getline(in, line);
  CHECK(line == "x,y,z,phi");
  std::vector<std::array<double, 4>> rows;
  while (std::getline(in, line)) {
    std::array<double, 4> r{};
    std::stringstream ss(line);
    for (double& v : r) {
      std::string field;
      std::getline(ss, field, ',');
      v = std::stod(field);
    }
    rows.push_back(r);
  }
  REQUIRE(rows.size() == 25);
  const Bodies<double> b = plummer_bodies<double>(500, 2);
  ForceLaw<double> law;
  law.eps2 = 0.01 * 0.01;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CHECK(rows[k][0] == -1 + 0.5 * double(k % 5));  // x fastest, nodes from -1 to 1
    CHECK(rows[k][1] == 0.5);                       // the plane's y
    CHECK(rows[k][2] == -1 + 0.5 * double(k / 5));
    const std::vector<double> at = {rows[k][0], rows[k][1], rows[k][2]};
    double phi = 0;
    direct_potentials(law, b.pos.data(), b.mass.data(), 500, at.data(), 1, &phi);
    CHECK(rows[k][3] == phi);
  }
  CHECK(std::filesystem::exists(dir / "p.meta.json"));
  CHECK_THAT(read(dir / "s.json"), Catch::Contains("\"points\": 25"));
}
