// The tree parameters' table (physics/tree_params.hpp), row by row: each is parsed within its
// bounds into its own field of TreeOptions and refused outside them; each is in the help of every
// command that evaluates forces and in `nbody list engines` for the engines of its trees (with that
// engine's default); each is refused with an engine of another tree; each is part of a run's
// identity. And the engine request (engines/request.hpp) that run, bench, tune and potential share.
#include <catch2/catch.hpp>
#include <filesystem>
#include <variant>

#include "cli/parse.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/request.hpp"
#include "physics/tree_params.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::cli;
using namespace nbody::test;
namespace fs = std::filesystem;

namespace {

// A text of a parameter and what it sets its field to (a number, or 0 and 1 for the two words), or
// none where it is out of bounds.
struct Example {
  std::string text;
  std::optional<double> value;
};

std::string number(double x) {
  std::ostringstream text;
  text << x;
  return text.str();
}

// At and beyond each bound of the row.
std::vector<Example> examples(const TreeParam& p) {
  if (const auto* v = std::get_if<RealValue>(&p.value)) {
    std::vector<Example> out = {{number(v->lo), v->lo}, {number(v->lo - 1), std::nullopt}, {"nan", std::nullopt}};
    if (std::isinf(v->hi)) out.push_back({"inf", v->hi});
    else out.insert(out.end(), {{number(v->hi), v->hi}, {number(v->hi + 1), std::nullopt}});
    return out;
  }
  if (const auto* v = std::get_if<WholeValue>(&p.value))
    return {{std::to_string(v->lo), v->lo}, {std::to_string(v->hi), v->hi}, {std::to_string(v->lo - 1), std::nullopt},
            {std::to_string(v->hi + 1), std::nullopt}, {"2x", std::nullopt}};
  const auto& v = std::get<ChoiceValue>(p.value);
  return {{std::string(v.words[0]), 0}, {std::string(v.words[1]), 1}, {"neither", std::nullopt}};
}

// The row's field in o, as a number.
double field_of(const TreeParam& p, const TreeOptions& o) {
  return std::visit([&](const auto& v) { return static_cast<double>(o.*v.field); }, p.value);
}

std::size_t row_of(const TreeParam& p) { return static_cast<std::size_t>(&p - tree_params.data()); }

// The first CPU engine (in double) of a tree the row steers.
std::string engine_for(const TreeParam& p) {
  for (const auto& e : engine_table<double>())
    if (e.can.device == Device::cpu && e.can.tree != TreeKind::none && steers(p, e.can.tree)) return std::string(e.name);
  FAIL("no CPU engine for " << p.flag);
  return {};
}

}  // namespace

TEST_CASE("every_tree_parameter_is_parsed_within_its_bounds_into_its_own_field", "[tree][cli][input]") {
  for (const TreeParam& p : tree_params)
    for (const Example& x : examples(p)) {
      INFO(p.flag << " " << x.text);
      ForceOptions f;
      f.tree[row_of(p)] = x.text;
      if (!x.value) {
        CHECK_THROWS_AS(parse_force_law<double>(f), InputError);
        if (x.text != "nan" && x.text != "2x")
          CHECK_THROWS_WITH(parse_force_law<double>(f),
                            Catch::StartsWith(std::string(p.flag) + " must be " + valid_text(p) + ", got '" + x.text + "'"));
        continue;
      }
      const TreeOptions o = parse_force_law<double>(f).tree;
      CHECK(field_of(p, o) == *x.value);
      for (const TreeParam& other : tree_params)  // the others keep their defaults
        if (&other != &p) CHECK(field_of(other, o) == field_of(other, TreeOptions{}));
    }
}

TEST_CASE("every_tree_parameter_is_in_the_help_of_every_command_that_evaluates_forces", "[tree][cli]") {
  const fs::path dir = scratch("tree_params_help");
  for (const std::string command : {"run", "bench", "tune", "potential"}) {
    REQUIRE(run_nbody(dir, command + " --help").exit_code == 0);
    const std::string help = read(dir / "stdout.txt");
    for (const TreeParam& p : tree_params) {
      INFO(command << " " << p.flag);
      CHECK_THAT(help, Catch::Contains(std::string(p.flag) + " ") && Catch::Contains(trees_text(p.trees) + " engines: ") &&
                           Catch::Contains(valid_text(p)));
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("list_engines_names_the_parameters_of_each_engines_tree_with_the_engines_defaults", "[tree][cli][engines]") {
  const fs::path dir = scratch("tree_params_list");
  REQUIRE(run_nbody(dir, "list engines --json").exit_code == 0);
  const nlohmann::json listed = nlohmann::json::parse(read(dir / "stdout.txt"));
  REQUIRE(run_nbody(dir, "list engines").exit_code == 0);
  const std::string text = read(dir / "stdout.txt");
  for (const auto& e : listed) {
    const std::string name = e["name"].get<std::string>();
    INFO(name);
    dispatch_precision(e["launch_precision"].get<std::string>(), [&]<class T>() {
      const EngineCapabilities& can = find_engine<T>(name).can;
      const std::string line = text.substr(text.find("\n" + name + " ") + 1);
      const std::string first_line = line.substr(0, line.find('\n'));
      std::size_t k = 0;
      for (const TreeParam& p : tree_params) {
        if (!steers(p, can.tree)) continue;
        INFO(p.flag);
        REQUIRE(k < e["tree_parameters"].size());
        const auto& listed_param = e["tree_parameters"][k++];
        CHECK(listed_param["flag"] == p.flag);
        CHECK(listed_param["valid"] == valid_text(p));
        CHECK(listed_param["default"] == *value_text(p, default_tree_options(can)));
        CHECK_THAT(first_line, Catch::Contains(std::string(p.flag) + " (default " + *value_text(p, default_tree_options(can)) + ")"));
      }
      CHECK(e["tree_parameters"].size() == k);
    });
  }
  fs::remove_all(dir);
}

TEMPLATE_TEST_CASE("every_engine_takes_the_tree_parameters_of_its_tree_and_refuses_the_others", "[tree][engines][input]", float,
                   double, dd) {
  using T = TestType;
  for (const auto& e : engine_table<T>())
    for (const TreeParam& p : tree_params) {
      INFO(e.name << " " << p.flag);
      const EngineRequest request{std::string(e.name), "", {&p}};
      if (steers(p, e.can.tree)) {
        CHECK(resolve_engine<T>(request, ForceLaw<T>{}).name == e.name);
      } else {
        CHECK_THROWS_WITH(resolve_engine<T>(request, ForceLaw<T>{}),
                          Catch::Contains(std::string(p.flag)) && Catch::Contains("'" + std::string(e.name) + "'"));
      }
    }
}

TEST_CASE("a_resume_with_another_value_of_any_tree_parameter_is_refused_naming_both", "[tree][cli][checkpoint]") {
  const fs::path dir = scratch("tree_params_identity");
  for (const TreeParam& p : tree_params) {
    std::vector<std::string> values;  // two valid values of the row
    for (const Example& x : examples(p))
      if (x.value) values.push_back(x.text);
    REQUIRE(values.size() >= 2);
    INFO(p.flag << " " << values[0] << " then " << values[1]);
    const std::string run = "run --ic plummer --n 40 --integrator leapfrog --dt 0.01 --t-end 0.04 --engine " + engine_for(p) + " ";
    REQUIRE(run_nbody(dir, run + std::string(p.flag) + " " + values[0] + " --checkpoint c.bin --stop-at 0.02").exit_code == 0);
    const Outcome changed = run_nbody(dir, "run --resume c.bin " + std::string(p.flag) + " " + values[1]);
    CHECK(changed.exit_code == 2);
    CHECK_THAT(changed.err, Catch::Contains(std::string(p.flag) + " is " + values[1] + " here but " + values[0] +
                                            " in the checkpoint's run"));
    CHECK(run_nbody(dir, "run --resume c.bin " + std::string(p.flag) + " " + values[0]).exit_code == 0);
    fs::remove(dir / "c.bin"), fs::remove(dir / "c.bin.bak");
  }
  fs::remove_all(dir);
}

TEMPLATE_TEST_CASE("the_default_engine_is_the_first_of_the_registry_or_with_compensated_sums_the_first_that_has_them",
                   "[engines][input]", float, double, dd, qd, quad, mp50) {
  using T = TestType;
  ForceLaw<T> law;
  CHECK(resolve_engine<T>({}, law).name == engine_table<T>().front().name);
  law.compensated = true;
  const auto& table = engine_table<T>();
  const auto first = std::find_if(table.begin(), table.end(), [](const auto& e) { return e.can.compensated_forces; });
  REQUIRE(first != table.end());
  CHECK(resolve_engine<T>({}, law).name == first->name);
  CHECK(&resolve_engine<T>({}, law).entry == &*first);
}

TEST_CASE("a_resolved_engine_is_made_with_the_launch_shape_asked_for", "[engines][input]") {
  const ResolvedEngine<double> cpu = resolve_engine<double>({"openmp", "block=64", {}}, ForceLaw<double>{});
  CHECK_THROWS_WITH(cpu.make(ForceLaw<double>{}), Catch::Contains("--launch: this engine has no launch shape"));
  CHECK(resolve_engine<double>({"openmp", "", {}}, ForceLaw<double>{}).make(ForceLaw<double>{}) != nullptr);
}

TEST_CASE("run_bench_and_potential_without_an_engine_take_the_default_of_the_engine_request", "[engines][cli]") {
  const fs::path dir = scratch("default_engine");
  const std::string first(engine_table<float>().front().name);
  REQUIRE(run_nbody(dir, "bench --n 16 --precision float --repeats 1").exit_code == 0);
  CHECK_THAT(read(dir / "stdout.txt"), Catch::Contains("\n" + first + ",float,16,"));
  REQUIRE(run_nbody(dir, "potential --ic plummer --n 16 --precision float --resolution 2 --out p.csv --summary p.json").exit_code == 0);
  CHECK(nlohmann::json::parse(read(dir / "p.json"))["engine"] == first);
  const auto& table = engine_table<double>();
  const auto compensated = std::find_if(table.begin(), table.end(), [](const auto& e) { return e.can.compensated_forces; });
  REQUIRE(run_nbody(dir, "run --ic plummer --n 16 --integrator rk4 --dt 0.01 --t-end 0.02 --compensated forces --summary s.json")
              .exit_code == 0);
  CHECK(nlohmann::json::parse(read(dir / "s.json"))["engine"] == std::string(compensated->name));
  fs::remove_all(dir);
}
