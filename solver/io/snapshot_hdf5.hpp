#pragma once
// Snapshots in GADGET's HDF5 layout, which yt, pynbody and (through the XDMF sidecar) ParaView
// read. `--snapshots NAME.hdf5` (or .h5) writes one file per snapshot time, NAME_000.hdf5,
// NAME_001.hdf5, ..., each holding
//   /Header     attributes NumPart_ThisFile, NumPart_Total, NumPart_Total_HighWord, MassTable,
//               Time, Redshift, BoxSize, NumFilesPerSnapshot, Omega0, OmegaLambda, HubbleParam,
//               Flag_DoublePrecision; and nbody's own: Precision (the run's) and Provenance (JSON
//               text: io/provenance.hpp's provenance_record of the run's parameters)
//   /PartType1  Coordinates (N x 3), Velocities (N x 3), Masses (N), ParticleIDs (N, uint64: 0..N-1)
// in float for float runs and in double otherwise. Open boundaries: BoxSize 0, no cosmology
// (Omega0 = OmegaLambda = 0, HubbleParam 1), units those of the run (G as given).
// A run in extended precision (dd, qd, quad, mp50) loses nothing: PartType1 also holds
// CoordinatesExpansion (N x 3 x K), VelocitiesExpansion (N x 3 x K), MassesExpansion (N x K), and
// the Header TimeExpansion (K): K doubles per value, the first the standard dataset's, whose sum
// taken from the last term to the first in the run's precision is the value exactly.
// NAME.xdmf lists the files as one time series (XDMF 3, a vertex cell per body) for ParaView.
//
// Like every output, the files are staged in the command's OutputSet (io/output_set.hpp), which
// gives them their names when the run completes and removes them otherwise.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/state.hpp"

namespace nbody {

class OutputSet;

// --snapshots NAME.hdf5 or NAME.h5 asks for HDF5 (anything else: CSV).
bool is_hdf5_path(const std::filesystem::path& path);
// NAME.hdf5 -> NAME_007.hdf5 (index 7), and NAME.xdmf.
std::filesystem::path hdf5_snapshot_file(const std::filesystem::path& name, std::uint64_t index);
std::filesystem::path xdmf_path_for(const std::filesystem::path& name);
// Whether `file` is one of the files hdf5_snapshot_file names for `name` (any index).
bool is_hdf5_snapshot_file(const std::filesystem::path& name, const std::filesystem::path& file);

class Hdf5Snapshots {
 public:
  // name: the NAME.hdf5 given, a series of `outputs`; parameters: the run's, recorded in every
  // file's Header; first_index: the number of the first file written (a resumed run goes on with
  // the numbers of the run it continues).
  Hdf5Snapshots(OutputSet& outputs, std::filesystem::path name, const nlohmann::json& parameters, std::uint64_t first_index = 0);

  // Writes the state at s.t as the next file.
  template <class T>
  void write(const State<T>& s);
  // Writes NAME.xdmf, the time series of the files written (outputs commits it with them).
  void finish();
  std::uint64_t next_index() const { return first_index_ + files_.size(); }

 private:
  struct File {
    std::filesystem::path name;
    double time;
  };
  OutputSet& outputs_;
  std::filesystem::path name_;
  nlohmann::json record_;  // provenance_record of the run's parameters; its time set at each file
  std::uint64_t first_index_;
  std::vector<File> files_;
  std::size_t n_ = 0;
  bool single_ = false;
};

// One snapshot in that layout under exactly this name, an output of `outputs` (--final-state NAME.hdf5).
template <class T>
void write_hdf5_snapshot(OutputSet& outputs, const std::filesystem::path& path, const State<T>& s, const nlohmann::json& parameters);

// Reads one snapshot file written by Hdf5Snapshots (any precision) into T: exactly, from the
// expansions, when the file holds them. Missing, truncated or foreign files: InputError, one line.
template <class T>
State<T> read_hdf5_snapshot(const std::filesystem::path& path);

}  // namespace nbody
