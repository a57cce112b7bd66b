#pragma once
// State files: CSV with header `id,mass,x,y,z,vx,vy,vz`, one body per row, numbers written with
// enough digits to round-trip the precision (RealTraits<T>::format) and parsed in T.
#include <filesystem>
#include <string>

#include "core/state.hpp"

namespace nbody {

inline constexpr const char* kStateHeader = "id,mass,x,y,z,vx,vy,vz";
// Snapshot files (nbody run --snapshots): the state at several times, one row per body and time.
inline constexpr const char* kSnapshotHeader = "t,id,mass,x,y,z,vx,vy,vz";

// The whole file as text (header + rows).
template <class T>
std::string format_state_csv(const State<T>& s);

// The rows of one snapshot at time s.t (no header), each `t,` followed by a state-file row.
template <class T>
std::string format_snapshot_rows(const State<T>& s);

// Reads and validates a state file: plain ASCII text (no byte-order mark), exact header, 8 fields a
// row (a comma at the end of a row makes 9), every number finite, masses positive, ids 0..N-1 in
// order. Errors name the file and line and quote at most a short, escaped excerpt of it.
template <class T>
State<T> read_state_csv(const std::filesystem::path& path);

}  // namespace nbody
