// The ordinary build's driver of a reader's fuzz target (fuzz_reader.cpp), for CTest:
//   replay_READER FILE|FOLDER...               each file (a folder's files) as one input: the
//                                              regression corpus, every input that ever broke a reader
//   replay_READER --flip-every-byte FILE...    the file with each of its bytes XOR 0xFF in turn
// A broken promise aborts with the reader's report; otherwise prints how many inputs ran.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int*, char***);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void run(const std::string& bytes) { LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()); }

}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool flip = !args.empty() && args.front() == "--flip-every-byte";
  if (flip) args.erase(args.begin());
  if (args.empty()) {
    std::fprintf(stderr, "usage: %s [--flip-every-byte] FILE|FOLDER...\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (const std::string& a : args) {
    if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (std::filesystem::is_regular_file(a)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "%s: no file or folder '%s'\n", argv[0], a.c_str());
      return 2;
    }
  }
  std::size_t inputs = 0;
  for (const auto& f : files) {
    const std::string bytes = read_all(f);
    if (!flip) {
      run(bytes), ++inputs;
      continue;
    }
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ 0xFF);
      run(flipped), ++inputs;
    }
  }
  std::printf("%s: %zu inputs from %zu files, every one read or refused\n", argv[0], inputs, files.size());
  return files.empty() ? 1 : 0;
}
