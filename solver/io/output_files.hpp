#pragma once
// The files a command will write, checked before it does any work: each names a file (not a
// directory) in an existing folder where this process can create files, and no two of them
// (outputs, their provenance records X.meta.json, a checkpoint's FILE.bak) nor an input are the
// same file. So a run never fails at its end for want of a place to write, never overwrites its
// input, and never writes two outputs, or two provenance records, to one name.
#include <filesystem>
#include <string>
#include <vector>

namespace nbody {

struct OutputFile {
  std::string flag;  // the option naming it: --final-state
  std::filesystem::path path;
  struct Companion {
    std::filesystem::path path;
    std::string what;  // "provenance record", "backup"
  };
  std::vector<Companion> companions;  // written with it
};

struct InputFile {
  std::string flag;  // --ic, --resume
  std::filesystem::path path;
  std::string rewritten_by;  // the output flag that may name this same file (--checkpoint for --resume), or empty
};

// An output with its provenance record (io/provenance.hpp).
OutputFile output_with_meta(const std::string& flag, const std::filesystem::path& path);

// Throws InputError, in one line naming the flag(s) and the file, at the first problem.
void check_output_files(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs = {});

}  // namespace nbody
