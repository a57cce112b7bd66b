// A libFuzzer target for one of nbody's readers (NBODY_FUZZ_READER names it in `readers` below):
// each input is written to a file and handed to nbody's command line in this process, as a user's
// file would be. Whatever the bytes, the command must end with exit 0, 2 (one line naming the
// problem) or 130 (a resumed run stopped at its first step, see below), never a crash under
// ASan/UBSan, an "unexpected error", a hang or a file left behind but the outputs. The same file
// runs the regression corpus in the ordinary build (replay.cpp).
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command_line.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "cuda/tune_cache.hpp"
#include "io/checkpoint.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define NBODY_FUZZ_SANITIZED 1
#endif
#endif

namespace {

struct Reader {
  std::string_view name;
  std::string_view file;            // the input's file name (its suffix picks the format)
  std::vector<std::string> args;    // nbody's arguments; {in}: the input, {dir}: a scratch folder
  bool checksummed = false;         // a checkpoint: its checksum is set, so that the content is read
};

// Resumed runs are told to run far (their end is past those of the seeds) and stop at their
// first step, as if interrupted (LLVMFuzzerInitialize): the whole checkpoint is read, the model
// loaded and resumed and a checkpoint written, but no step taken.
const Reader readers[] = {
    {"state_csv", "in.csv", {"ic", "--ic", "file:{in}", "--out", "{dir}/out.csv"}},
    {"hdf5", "in.hdf5", {"ic", "--ic", "file:{in}", "--out", "{dir}/out.csv"}},
    {"run_checkpoint", "in.ck", {"run", "--resume", "{in}", "--t-end", "1e9", "--checkpoint", "{dir}/next.ck", "--quiet"}, true},
    {"dpd_checkpoint", "in.ck", {"dpd", "--resume", "{in}", "--steps", "9000000000000000000", "--checkpoint", "{dir}/next.ck", "--quiet"}, true},
    {"sph_checkpoint", "in.ck", {"sph", "--resume", "{in}", "--t-end", "1e300", "--checkpoint", "{dir}/next.ck", "--quiet"}, true},
    {"gravity_checkpoint_ic", "in.ck", {"ic", "--ic", "file:{in}", "--out", "{dir}/out.csv"}, true},
    {"tuning_cache", "tune.json", {}},
};

const Reader& reader() {
  for (const Reader& r : readers)
    if (r.name == NBODY_FUZZ_READER) return r;
  std::fprintf(stderr, "fuzz_reader: no reader '%s'\n", NBODY_FUZZ_READER);
  std::abort();
}

std::filesystem::path scratch;
std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A broken promise: says what, with the command's output, and aborts (the fuzzer keeps the input).
[[noreturn]] void broken(const std::string& what, const std::string& output) {
  std::fprintf(stderr, "fuzz_reader %s: %s\n%s\n", NBODY_FUZZ_READER, what.c_str(), output.c_str());
  std::abort();
}

// The tuning cache has no command on a machine without a GPU: its lookup is called for every key
// the file has (and one it has not), as `run` and `bench` call it.
void look_up_tuning_cache(const std::filesystem::path& in) {
  ::setenv("NBODY_TUNE_CACHE", in.c_str(), 1);
  std::vector<std::string> keys = {"device | cuda-tiled | float"};
  try {
    const auto j = nlohmann::json::parse(read_all(in));
    if (j.is_object())
      for (const auto& [k, v] : j.items()) keys.push_back(k);
  } catch (const nlohmann::json::exception&) {
  }
  for (const std::string& k : keys) {
    const auto a = k.find(" | "), b = a == std::string::npos ? a : k.find(" | ", a + 3);
    if (b == std::string::npos) continue;
    try {
      nbody::tune_cache::lookup(k.substr(0, a), k.substr(a + 3, b - a - 3), k.substr(b + 3), 4096);
    } catch (const nbody::InputError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const Reader& r = reader();
  std::string dir = (std::filesystem::temp_directory_path() / "nbody-fuzz-XXXXXX").string();
  if (!::mkdtemp(dir.data())) broken("cannot make a scratch folder", dir);
  scratch = dir;
#if NBODY_FUZZ_SANITIZED  // the sanitizers report on the real stderr, not into the command's output file
  __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::uintptr_t>(::dup(STDERR_FILENO))));
#endif
  std::atexit([] { std::filesystem::remove_all(scratch); });
  if (!r.args.empty()) {  // an interrupt recorded once for the whole process: every run stops at its first step
    std::signal(SIGINT, SIG_DFL);
    nbody::install_interrupt_handlers();
    static nbody::DeferInterrupts deferred;
    std::raise(SIGINT);
    if (nbody::interrupt_signal() != SIGINT) broken("the interrupt was not recorded", "");
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Reader& r = reader();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (r.checksummed && bytes.size() >= 8) {
    const std::uint64_t sum = nbody::checkpoint_checksum(std::string_view(bytes).substr(0, bytes.size() - 8));
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  const std::filesystem::path in = scratch / r.file;
  std::ofstream(in, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (r.args.empty()) {
    look_up_tuning_cache(in);
  } else {
    std::vector<std::string> args = {"nbody"};
    for (std::string a : r.args) {
      for (const auto& [key, value] : {std::pair<std::string, std::string>{"{in}", in.string()}, {"{dir}", scratch.string()}})
        if (const auto at = a.find(key); at != std::string::npos) a.replace(at, key.size(), value);
      args.push_back(a);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The command's stdout and stderr go to a file: the one line of a refusal is read back.
    const std::filesystem::path said = scratch / "said.txt";
    std::fflush(stdout), std::fflush(stderr);
    const int saved_out = ::dup(STDOUT_FILENO), saved_err = ::dup(STDERR_FILENO);
    const int to = ::open(said.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(to, STDOUT_FILENO), ::dup2(to, STDERR_FILENO), ::close(to);
    const int code = nbody::cli::run_command_line(static_cast<int>(args.size()), argv.data());
    std::fflush(stdout), std::fflush(stderr);
    ::dup2(saved_out, STDOUT_FILENO), ::dup2(saved_err, STDERR_FILENO), ::close(saved_out), ::close(saved_err);
    const std::string output = read_all(said);
    if (code != 0 && code != 2 && code != 130) broken("exit " + std::to_string(code), output);
    // (the line of an exception nbody does not expect; a file's text never starts a line of it)
    if (("\n" + output).find("\nnbody: run failed: unexpected error") != std::string::npos) broken("an unexpected error", output);
    if (code == 2 && output.find('\n') != output.size() - 1) broken("a refusal in more than one line", output);
  }
  for (const auto& e : std::filesystem::directory_iterator(scratch))  // the input and the outputs only
    if (const auto name = e.path().filename().string();
        name != r.file && name != "said.txt" && !name.starts_with("out.") && !name.starts_with("next.ck"))
      broken("a file left behind: " + name, "");
  for (const auto& e : std::filesystem::directory_iterator(scratch)) std::filesystem::remove_all(e.path());
  return 0;
}
