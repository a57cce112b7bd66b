#include "cli/resume.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/error.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "io/checkpoint.hpp"

namespace nbody::cli {

namespace {

// What a part of a run chooses for itself: when it ends or stops, what it writes, and where the
// forces are computed (another engine than the checkpoint's continues the run, though not bit for
// bit: run.cpp says so).
constexpr std::array<std::string_view, 13> kResumeMayChange = {
    "--t-end",       "--stop-at", "--resume",    "--checkpoint", "--checkpoint-every", "--diagnostics",
    "--final-state", "--summary", "--snapshots", "--engine",     "--launch",           "--stepping",
    "--quiet"};
// Flags of the stored command line that belonged to the part that wrote the checkpoint.
constexpr std::array<std::string_view, 2> kNotInherited = {"--resume", "--stop-at"};

bool listed(auto& names, const std::string& name) { return std::find(names.begin(), names.end(), name) != names.end(); }

struct Flag {
  std::string name;                 // as the subcommand knows it: --dt
  std::string value;
  std::vector<std::string> tokens;  // as written: {"--dt", "0.1"} or {"--dt=0.1"}
};

struct RunLine {
  std::vector<std::string> head;  // the program, global flags and the subcommand
  std::vector<Flag> flags;
  bool valid = false;  // a `run` command line of known flags, each with its value (else CLI11 says what is wrong)
};

RunLine parse_run_line(const CLI::App& run, const std::vector<std::string>& args) {
  RunLine line;
  std::size_t i = 0;
  while (i < args.size() && (i == 0 || args[i].starts_with("-"))) line.head.push_back(args[i++]);
  if (i == args.size() || args[i] != run.get_name()) return line;
  line.head.push_back(args[i++]);
  for (; i < args.size(); ++i) {
    const std::string& token = args[i];
    const std::size_t eq = token.find('=');
    const std::string name = token.substr(0, eq);
    const CLI::Option* opt = token.starts_with("--") ? run.get_option_no_throw(name) : nullptr;
    if (!opt || opt == run.get_help_ptr()) return line;
    Flag flag{"--" + opt->get_lnames().front(), "", {token}};
    if (eq != std::string::npos) {
      flag.value = token.substr(eq + 1);
    } else if (opt->get_items_expected_max() > 0) {
      if (i + 1 == args.size()) return line;
      flag.value = args[++i];
      flag.tokens.push_back(flag.value);
    }
    line.flags.push_back(std::move(flag));
  }
  line.valid = true;
  return line;
}

const Flag* find_flag(const RunLine& line, const std::string& name) {
  for (const Flag& f : line.flags)
    if (f.name == name) return &f;
  return nullptr;
}

// The same number in the run's precision (0.01 and 1e-2), or the same text.
bool same_value(const std::string& a, const std::string& b, const std::string& precision) {
  if (a == b) return true;
  return dispatch_precision(precision, [&]<class T>() {
    try {
      return RealTraits<T>::parse(a, "") == RealTraits<T>::parse(b, "");
    } catch (const InputError&) {
      return false;
    }
  });
}

}  // namespace

std::vector<std::string> with_resumed_flags(const CLI::App& run, const std::vector<std::string>& args) {
  const RunLine given = parse_run_line(run, args);
  const Flag* resume = find_flag(given, "--resume");
  if (!given.valid || !resume) return args;
  const Checkpoint checkpoint = read_checkpoint(resume->value);
  std::vector<std::string> stored_args;
  try {
    stored_args = checkpoint.parameters.at("command_line").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception&) {
  }
  const RunLine stored = parse_run_line(run, stored_args);
  if (!stored.valid)
    throw InputError("checkpoint '" + resume->value + "' holds no command line this version of nbody reads: " +
                     checkpoint.parameters.value("command_line", nlohmann::json()).dump());
  auto stored_value = [&](const std::string& name) {
    const Flag* f = find_flag(stored, name);
    return f ? f->value : run.get_option(name)->get_default_str();
  };
  const std::string precision = stored_value("--precision");
  for (const Flag& f : given.flags) {
    if (listed(kResumeMayChange, f.name)) continue;
    const std::string was = stored_value(f.name);
    if (same_value(f.value, was, precision)) continue;
    const std::string may_change =
        comma_list(kResumeMayChange | std::views::filter([](std::string_view name) { return name != "--resume"; }));
    throw InputError("--resume " + resume->value + ": " + f.name + " is " + f.value + " here but " +
                     (was.empty() ? "not given" : was) + (find_flag(stored, f.name) || was.empty() ? "" : " (the default)") +
                     " in the checkpoint's run; leave it out to continue that run (a resume may change only " + may_change + ")");
  }
  std::vector<std::string> merged = given.head;
  for (const Flag& f : stored.flags)
    if (!listed(kNotInherited, f.name) && !find_flag(given, f.name))
      merged.insert(merged.end(), f.tokens.begin(), f.tokens.end());
  for (const Flag& f : given.flags) merged.insert(merged.end(), f.tokens.begin(), f.tokens.end());
  return merged;
}

}  // namespace nbody::cli
