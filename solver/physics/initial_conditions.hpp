#pragma once
// Initial conditions: built-in generators and state files. Numbers arrive as text and are parsed
// in the run's own precision T, so that an extended-precision run starts from exact values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/state.hpp"

namespace nbody {

struct IcParams {
  std::string name = "kepler";       // kepler, two-galaxies, galaxy, plummer, or file:PATH.csv|.hdf5
  std::optional<std::size_t> n;      // number of bodies (generators that take one)
  std::uint64_t seed = 1;            // random generators
  std::string a = "1";               // kepler: semi-major axis
  std::string e = "0";               // kepler: eccentricity, 0 <= e < 1
  std::string mass_ratio = "1";      // kepler: m2/m1 (total mass 1)
  std::string box = "100";           // two-galaxies, galaxy: box size, galaxy radius R = box/2
  std::string central_fraction = "0.99";  // galaxy: the central body's share of the mass
  std::string G = "1";               // gravitational constant the velocities are set up for
};

struct IcInfo {
  std::string_view name;
  std::string_view description;
};
const std::vector<IcInfo>& ic_list();

// The file an --ic of file:PATH reads (an input no output may overwrite), or empty.
inline std::string ic_file(const IcParams& p) { return p.name.starts_with("file:") ? p.name.substr(5) : std::string(); }

// The initial state named by p.name (at t = 0).
template <class T>
State<T> make_initial_state(const IcParams& p);

// The number of bodies of that state (a file's or --ic kepler's: read or made to count them).
template <class T>
std::size_t initial_body_count(const IcParams& p);
// Its bodies [first, first + count), the same bits as those of make_initial_state(p): a generator
// draws every body in order (O(N) time) and keeps these (O(count) memory); a file is read whole.
template <class T>
State<T> make_initial_block(const IcParams& p, std::size_t first, std::size_t count);

// Kepler orbit: the analytic state at time t (Kepler's equation solved to the precision of T).
// Needs p.name == "kepler".
template <class T>
State<T> kepler_state_at(const IcParams& p, T t);

// The orbital period of a bound two-body state, 2 pi sqrt(a^3 / (G M)) with the semi-major axis a
// from the orbit's energy: the `P` of time values such as `--t-end 10P`. Throws unless the state
// has two bodies on a bound orbit.
template <class T>
T two_body_period(const State<T>& s, T G);

// The `P` of time values: for --ic kepler, 2 pi sqrt(a^3 / (G M)) from the orbit's parameters
// (exact to the precision of T); for any other bound two-body state, two_body_period (whose
// energy, at pericentre of an eccentric orbit, carries a cancellation: ~1e-14 relative at e=0.9).
template <class T>
T orbital_period(const IcParams& p, const State<T>& initial, T G);

}  // namespace nbody
