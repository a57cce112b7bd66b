#include "physics/tree_params.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "core/registry.hpp"

namespace nbody {

namespace {

std::string number_text(double x) {
  std::ostringstream text;
  text << x;
  return text.str();
}

}  // namespace

std::string valid_text(const TreeParam& p) {
  if (const auto* real = std::get_if<RealValue>(&p.value))
    return std::isinf(real->hi) ? "at least " + number_text(real->lo) + " (or inf)"
                                : "from " + number_text(real->lo) + " to " + number_text(real->hi);
  if (const auto* whole = std::get_if<WholeValue>(&p.value))
    return "a whole number from " + std::to_string(whole->lo) + " to " + std::to_string(whole->hi);
  return sentence_list(std::get<ChoiceValue>(p.value).words, "or");
}

std::optional<std::string> value_text(const TreeParam& p, const TreeOptions& o) {
  if (const auto* real = std::get_if<RealValue>(&p.value)) return number_text(o.*real->field);
  if (const auto* whole = std::get_if<WholeValue>(&p.value)) {
    if (o.*whole->field == 0) return std::nullopt;
    return std::to_string(o.*whole->field);
  }
  const auto& choice = std::get<ChoiceValue>(p.value);
  return std::string(choice.words[o.*choice.field]);
}

std::string trees_text(unsigned trees) {
  std::vector<std::string_view> nouns;
  for (TreeKind k : {TreeKind::kdtree, TreeKind::octree})
    if (trees & tree_bit(k)) nouns.push_back(tree_noun(k));
  return sentence_list(nouns, "and");
}

}  // namespace nbody
