#pragma once
// The files a command writes, owned by one object from before its first step to its end.
//
// Declared and checked up front (InputError: exit 2, one line naming the flag, the file and the
// problem): each output names a file in an existing folder where this process can create files;
// neither it nor any of its companions (the provenance record X.meta.json, an HDF5 series' files
// NAME_000.hdf5, NAME_001.hdf5, ... and NAME.xdmf, a checkpoint's FILE.bak, the lock files below)
// is a directory; no two of them, and none of them and an input, are the same file (--resume FILE
// may be --checkpoint FILE).
//
// Locked: every file of the set has a lock file X.lock beside it, held (flock) for the life of the
// set and removed at its end, so that a second command writing any of the same files is refused
// at once, naming the process that writes them. The kernel releases the lock of a process that
// dies; its X.lock stays, no longer in force, and the next set that takes it removes it, with the
// dead run's temporary files (X.tmp.*).
//
// Staged and committed together: outputs are written under temporary names in their folders
// (io/atomic_file.hpp), each registered so that a signal removes it. commit() writes the provenance
// records, writes every staged file to the disk and checks it, and only then renames them all: a
// failure before that (a full disk, an exception, a signal) leaves none of them, and a set
// destroyed uncommitted removes what it staged. The checkpoint is the exception: written whole
// whenever the command saves it (io/checkpoint.hpp), it is the one file a failed or interrupted
// run keeps.
//
// Under mpiexec only rank 0 writes: the other ranks check the names, and write to /dev/null.
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nbody {

// How an output is written, which says what companions it has.
enum class OutputKind {
  recorded,    // a file with its provenance record X.meta.json (io/provenance.hpp), written by commit()
  plain,       // a file alone (a JSON summary; an HDF5 file, whose Header holds its record)
  series,      // NAME.hdf5: the snapshots NAME_000.hdf5, NAME_001.hdf5, ... and NAME.xdmf (io/snapshot_hdf5.hpp)
  checkpoint,  // written whole whenever the command saves it, the previous one kept as FILE.bak
};

struct OutputFile {
  std::string flag;  // the option naming it: --final-state
  std::filesystem::path path;
  OutputKind kind = OutputKind::recorded;
};

struct InputFile {
  std::string flag;  // --ic, --resume
  std::filesystem::path path;
  std::string rewritten_by;  // the output flag that may name this same file (--checkpoint for --resume), or empty
};

class OutputSet {
 public:
  // Checks and locks the files of `outputs` (InputError at the first problem).
  explicit OutputSet(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs = {});
  // Uncommitted: removes every file staged. Then the lock files.
  ~OutputSet();
  OutputSet(OutputSet&&) noexcept;
  OutputSet& operator=(OutputSet&&) noexcept;

  // The stream of a declared output or sidecar, staged at the first call.
  std::ostream& stream(const std::filesystem::path& path);
  // Stages a declared output, or a file of a declared series, that a library writes by name: the
  // name to write it under until commit().
  std::filesystem::path stage(const std::filesystem::path& path);
  // Writes the provenance records of the outputs that have one (their parameters: `parameters`),
  // then commits every file staged; each declared output (but the checkpoint) must have been.
  // From here on a signal changes nothing (hold_interrupts): the command has done its work.
  void commit(const nlohmann::json& parameters);

 private:
  struct Files;
  std::unique_ptr<Files> files_;
};

}  // namespace nbody
