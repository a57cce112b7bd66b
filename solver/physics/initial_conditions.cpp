#include "physics/initial_conditions.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include "core/error.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "io/checkpoint.hpp"
#include "io/snapshot_hdf5.hpp"
#include "io/state_csv.hpp"

namespace nbody {

const std::vector<IcInfo>& ic_list() {
  static const std::vector<IcInfo> list = {
      {"kepler", "two bodies on a Kepler ellipse (--a --e --mass-ratio), total mass 1, centre-of-mass frame, at pericentre"},
      {"two-galaxies", "seed S0's collision of two flattened discs of mass 1000 each, 99.9% in a central body (--n --seed --box)"},
      {"galaxy", "seed S0's galaxy of mass 1000 at rest at the origin, --central-fraction of it in a central body (--n --seed --box --central-fraction)"},
      {"plummer", "Plummer sphere in Henon units (M = G = 1, E = -1/4), equal masses (--n --seed)"},
      {"file:PATH.csv", "a state file with header id,mass,x,y,z,vx,vy,vz (as written by `nbody ic`)"},
      {"file:PATH.hdf5", "a snapshot in GADGET's HDF5 layout, as `nbody run --snapshots` writes (exact in every precision)"},
  };
  return list;
}

namespace {

template <class T>
T parse_param(const std::string& text, std::string_view what) {
  const T x = RealTraits<T>::parse(text, what);
  if (!is_finite(x)) throw InputError(std::string(what) + ": '" + text + "' is not finite");
  return x;
}

template <class T>
T positive_param(const std::string& text, std::string_view what) {
  const T x = parse_param<T>(text, what);
  if (!(x > T(0))) throw InputError(std::string(what) + " must be positive, got '" + text + "'");
  return x;
}

template <class T>
void check_kepler(const IcParams& p, T& a, T& e, T& q, T& G) {
  if (p.name != "kepler") throw InputError("--at-time needs --ic kepler (the analytic orbit), not '" + p.name + "'");
  if (p.n && *p.n != 2) throw InputError("--ic kepler has 2 bodies, got --n " + std::to_string(*p.n));
  a = positive_param<T>(p.a, "--a");
  e = parse_param<T>(p.e, "--e");
  if (!(e >= T(0) && e < T(1))) throw InputError("--e must satisfy 0 <= e < 1 (an ellipse), got '" + p.e + "'");
  q = positive_param<T>(p.mass_ratio, "--mass-ratio");
  G = positive_param<T>(p.G, "--G");
}

// Uniform in [0, 1) with 53 random bits, independent of the standard library's distributions
// (whose algorithms are implementation-defined): the same seed gives the same bodies everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : gen_(seed) {}
  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

 private:
  std::mt19937_64 gen_;
};

std::size_t required_n(const IcParams& p, std::size_t min) {
  if (!p.n) throw InputError("--ic " + p.name + " needs --n (number of bodies)");
  if (*p.n < min)
    throw InputError("--ic " + p.name + " needs --n >= " + std::to_string(min) + ", got " + std::to_string(*p.n));
  return *p.n;
}

template <class T>
void set_body(State<T>& s, std::size_t i, T m, T x, T y, T z, T vx, T vy, T vz) {
  s.mass[i] = m;
  s.pos(0)[i] = x, s.pos(1)[i] = y, s.pos(2)[i] = z;
  s.vel(0)[i] = vx, s.vel(1)[i] = vy, s.vel(2)[i] = vz;
}

// Where a generator's bodies go: the bodies [first, first + count) of the whole state are kept,
// the others drawn and dropped, so that a rank's block has the bits of the whole state's.
template <class T>
struct Block {
  State<T> s;
  std::size_t first = 0;
  Block(std::size_t first, std::size_t count) : s(count), first(first) {}
  void set(std::size_t i, T m, T x, T y, T z, T vx, T vy, T vz) {
    if (i < first || i - first >= s.size()) return;
    set_body(s, i - first, m, x, y, z, vx, vy, vz);
  }
};

// Seed S0's galaxy: total mass 1000, m_central of it in a central body at the centre; the stars
// uniform in a sphere of radius R squashed to 0.3 in z; each star on a circular orbit about +z whose
// speed is set by the central mass plus the (r/R)^3 share of the star mass inside r.
constexpr int kGalaxyMass = 1000;

template <class T>
void add_galaxy(Block<T>& s, std::size_t first, std::size_t count, T m_central, T R, T cx, T vy_bulk, T G, Random& rng) {
  const T M = T(kGalaxyMass);
  const std::size_t stars = count - 1;
  const T m_stars = M - m_central;
  const T m_star = stars ? m_stars / T(stars) : T(0);
  s.set(first, m_central, cx, T(0), T(0), T(0), vy_bulk, T(0));
  for (std::size_t k = 1; k <= stars; ++k) {
    double x, y, z;
    do {
      x = rng.uniform(-1, 1), y = rng.uniform(-1, 1), z = rng.uniform(-1, 1);
    } while (x * x + y * y + z * z > 1.0 || x * x + y * y == 0.0);
    const T px = R * T(x), py = R * T(y), pz = R * T(z) * T(3) / T(10);
    const T r = sqrt(px * px + py * py + pz * pz);
    const T rr = r / R;
    const T v = sqrt(G * (m_central + m_stars * rr * rr * rr) / r);
    const T rho = sqrt(px * px + py * py);  // direction z x r, in the disc plane
    s.set(first + k, m_star, cx + px, py, pz, -v * py / rho, vy_bulk + v * px / rho, T(0));
  }
}

template <class T>
void two_galaxies(const IcParams& p, Block<T>& s) {
  const std::size_t n = required_n(p, 2);
  const T box = positive_param<T>(p.box, "--box");
  const T G = positive_param<T>(p.G, "--G");
  const T R = box / T(2);
  const T M = T(kGalaxyMass), m_central = M * T(999) / T(1000);
  const T v = sqrt(G * M / (T(2) * R));
  Random rng(p.seed);  // one stream: the second galaxy draws different stars from the first
  const std::size_t first = (n + 1) / 2;
  add_galaxy<T>(s, 0, first, m_central, R, -R, -v / T(3), G, rng);
  add_galaxy<T>(s, first, n - first, m_central, R, R, v / T(3), G, rng);
}

// S0's million-star scenes: one galaxy, its central body a given fraction of the mass (0.99: a
// disc in near-circular orbits; 0.1: stars that the centre cannot hold).
template <class T>
void galaxy(const IcParams& p, Block<T>& s) {
  const std::size_t n = required_n(p, 2);
  const T R = positive_param<T>(p.box, "--box") / T(2);
  const T G = positive_param<T>(p.G, "--G");
  const T f = parse_param<T>(p.central_fraction, "--central-fraction");
  if (!(f > T(0) && f < T(1)))
    throw InputError("--central-fraction must satisfy 0 < f < 1 (the central body's share of the mass), got '" +
                     p.central_fraction + "'");
  Random rng(p.seed);
  add_galaxy<T>(s, 0, n, T(kGalaxyMass) * f, R, T(0), T(0), G, rng);
}

// Aarseth, Henon & Wielen (1974): radius from the inverted cumulative mass, speed by rejection
// from q^2 (1 - q^2)^(7/2); then scaled to Henon units (the Plummer radius is 3 pi / 16) and moved
// to the centre-of-mass frame (the means of all bodies, summed in body order as they are drawn).
template <class T>
void plummer(const IcParams& p, Block<T>& s) {
  const std::size_t n = required_n(p, 1);
  Random rng(p.seed);
  T sum_r[3] = {}, sum_v[3] = {};
  const double length = 3.0 * std::numbers::pi / 16.0;
  const double speed = 1.0 / std::sqrt(length);
  auto isotropic = [&](double r, double& x, double& y, double& z) {
    const double cz = rng.uniform(-1, 1), phi = rng.uniform(0, 2 * std::numbers::pi);
    const double sz = std::sqrt(1 - cz * cz);
    x = r * sz * std::cos(phi), y = r * sz * std::sin(phi), z = r * cz;
  };
  for (std::size_t i = 0; i < n; ++i) {
    double mfrac;
    do mfrac = rng.uniform(); while (mfrac <= 0.0 || mfrac > 0.999);  // no body at infinity
    const double r = 1.0 / std::sqrt(std::pow(mfrac, -2.0 / 3.0) - 1.0);
    double q, g;
    do {
      q = rng.uniform(), g = rng.uniform(0, 0.1);
    } while (g > q * q * std::pow(1 - q * q, 3.5));
    const double v = q * std::sqrt(2.0) * std::pow(1 + r * r, -0.25);
    double x, y, z, vx, vy, vz;
    isotropic(r * length, x, y, z);
    isotropic(v * speed, vx, vy, vz);
    const T r3[3] = {T(x), T(y), T(z)}, v3[3] = {T(vx), T(vy), T(vz)};
    for (int d = 0; d < 3; ++d) sum_r[d] += r3[d], sum_v[d] += v3[d];
    s.set(i, T(1) / T(n), r3[0], r3[1], r3[2], v3[0], v3[1], v3[2]);
  }
  for (int d = 0; d < 3; ++d) {  // centre-of-mass frame (equal masses: subtract the means)
    const T mean_r = sum_r[d] / T(n), mean_v = sum_v[d] / T(n);
    for (std::size_t i = 0; i < s.s.size(); ++i) s.s.pos(d)[i] -= mean_r, s.s.vel(d)[i] -= mean_v;
  }
}

}  // namespace

template <class T>
T two_body_period(const State<T>& s, T G) {
  if (s.size() != 2)
    throw InputError("time in orbital periods (P) needs a two-body system, this one has " + std::to_string(s.size()) + " bodies");
  T r2{0}, v2{0};
  for (int d = 0; d < 3; ++d) {
    const T dr = s.pos(d)[1] - s.pos(d)[0], dv = s.vel(d)[1] - s.vel(d)[0];
    r2 += dr * dr, v2 += dv * dv;
  }
  const T mu = G * (s.mass[0] + s.mass[1]);
  const T energy = v2 / T(2) - mu / sqrt(r2);  // specific orbital energy
  if (!(energy < T(0))) throw InputError("time in orbital periods (P) needs a bound two-body orbit; this one is unbound");
  const T a = -mu / (T(2) * energy);
  return T(2) * pi<T>() * sqrt(a * a * a / mu);
}

template <class T>
T orbital_period(const IcParams& p, const State<T>& initial, T G) {
  if (p.name != "kepler") return two_body_period(initial, G);
  T a, e, q, G_ic;
  check_kepler(p, a, e, q, G_ic);
  return T(2) * pi<T>() * sqrt(a * a * a / (G * T(1)));  // total mass M = 1
}

template <class T>
State<T> kepler_state_at(const IcParams& p, T t) {
  T a, e, q, G;
  check_kepler(p, a, e, q, G);
  const T M = T(1), m1 = M / (T(1) + q), m2 = M - m1;
  const T two_pi = T(2) * pi<T>();
  const T mean_motion = sqrt(G * M / (a * a * a));
  const T mean_anomaly = fmod(mean_motion * t, two_pi);
  // Kepler's equation E - e sin E = M by Newton's method, to the precision of T.
  T E = e < T(0.8) ? mean_anomaly : pi<T>();
  for (int it = 0; it < 100; ++it) {
    const T dE = (E - e * sin(E) - mean_anomaly) / (T(1) - e * cos(E));
    E -= dE;
    if (abs(dE) <= T(4) * RealTraits<T>::epsilon() * (T(1) + abs(E))) break;
  }
  const T b = a * sqrt(T(1) - e * e);
  const T E_dot = mean_motion / (T(1) - e * cos(E));
  const T rx = a * (cos(E) - e), ry = b * sin(E);  // relative position r2 - r1, pericentre on +x
  const T vx = -a * sin(E) * E_dot, vy = b * cos(E) * E_dot;
  State<T> s(2);
  s.t = t;
  set_body<T>(s, 0, m1, -m2 / M * rx, -m2 / M * ry, T(0), -m2 / M * vx, -m2 / M * vy, T(0));
  set_body<T>(s, 1, m2, m1 / M * rx, m1 / M * ry, T(0), m1 / M * vx, m1 / M * vy, T(0));
  return s;
}

template <class T>
std::size_t initial_body_count(const IcParams& p) {
  if (p.name.starts_with("file:") || p.name == "kepler") return make_initial_state<T>(p).size();
  find_entry(ic_list(), p.name, "initial condition");  // throws, listing the valid names
  return required_n(p, 1);
}

template <class T>
State<T> make_initial_block(const IcParams& p, std::size_t first, std::size_t count) {
  if (p.name.starts_with("file:") || p.name == "kepler") {
    State<T> all = make_initial_state<T>(p);
    if (first + count > all.size())
      throw InputError("bodies " + std::to_string(first) + " to " + std::to_string(first + count) + " of a state of " +
                       std::to_string(all.size()));
    State<T> s(count);
    s.t = all.t;
    for (std::size_t i = 0; i < count; ++i) set_body<T>(s, i, all.mass[first + i], all.pos(0)[first + i], all.pos(1)[first + i],
                                                        all.pos(2)[first + i], all.vel(0)[first + i], all.vel(1)[first + i],
                                                        all.vel(2)[first + i]);
    return s;
  }
  if (first + count > initial_body_count<T>(p))
    throw InputError("bodies " + std::to_string(first) + " to " + std::to_string(first + count) + " of --n " +
                     std::to_string(*p.n));
  Block<T> b(first, count);
  if (p.name == "two-galaxies") two_galaxies<T>(p, b);
  else if (p.name == "galaxy") galaxy<T>(p, b);
  else plummer<T>(p, b);
  return std::move(b.s);
}

template <class T>
State<T> make_initial_state(const IcParams& p) {
  if (p.name.starts_with("file:")) {
    if (p.n) throw InputError("--n cannot be combined with --ic file: (the file sets N)");
    if (p.name == "file:") throw InputError("--ic file: needs a path: file:PATH.csv or file:PATH.hdf5");
    const std::string path = ic_file(p);
    if (looks_like_checkpoint(path))
      throw InputError("--ic file:" + path + " is a checkpoint: `nbody run --resume " + path +
                       "` continues its run, `nbody ic --ic file:" + path + " --out FILE` writes its bodies");
    return is_hdf5_path(path) ? read_hdf5_snapshot<T>(path) : read_state_csv<T>(path);
  }
  if (p.name == "kepler") return kepler_state_at<T>(p, T(0));
  return make_initial_block<T>(p, 0, initial_body_count<T>(p));
}

#define NBODY_INSTANTIATE(T)                                     \
  template State<T> make_initial_state<T>(const IcParams&);     \
  template std::size_t initial_body_count<T>(const IcParams&);  \
  template State<T> make_initial_block<T>(const IcParams&, std::size_t, std::size_t); \
  template State<T> kepler_state_at<T>(const IcParams&, T);     \
  template T two_body_period<T>(const State<T>&, T);                \
  template T orbital_period<T>(const IcParams&, const State<T>&, T);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
