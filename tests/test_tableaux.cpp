// Every explicit Runge-Kutta tableau against Butcher's order conditions: for every rooted tree t
// with |t| <= p, sum_i b_i Phi_i(t) = 1 / gamma(t) (Butcher 1963; Hairer, Norsett & Wanner,
// "Solving ODEs I", 2nd ed., Sect. II.2, Theorem 2.13), for the weights advanced (order p) and for
// each embedded solution at its own order; the conditions of order p + 1 must not all hold (the
// order is exactly p). Also c_i = sum_j a_ij, A strictly lower triangular, and the FSAL stage.
// Arithmetic: exact rationals when every coefficient of the tableau is rational, otherwise 100
// significant digits with tolerance 1e-60 (irrational coefficients are stored with >= 60 digits).
// A new tableau needs one line: its method struct in the list of the TEMPLATE_TEST_CASE below.
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "integrators/cash_karp.hpp"
#include "integrators/dop853.hpp"
#include "integrators/dopri5.hpp"
#include "integrators/euler.hpp"
#include "integrators/feagin10.hpp"
#include "integrators/fehlberg78.hpp"
#include "integrators/midpoint.hpp"
#include "integrators/rk4.hpp"
#include "integrators/trapeze.hpp"
#include "integrators/verner65.hpp"

using namespace nbody;
namespace bmp = boost::multiprecision;
using Rational = bmp::cpp_rational;
using Real100 = bmp::cpp_bin_float_100;

namespace {

// All rooted trees up to a given order, each a multiset of smaller trees (its root's subtrees),
// stored as non-decreasing indices into the same list; trees are numbered by increasing order.
struct RootedTrees {
  std::vector<std::vector<int>> children;
  std::vector<int> order;
  std::vector<long long> gamma;  // the density: gamma(t) = |t| prod gamma(subtrees)
  std::vector<int> first;        // trees of order n are first[n] .. first[n + 1) - 1

  explicit RootedTrees(int max_order) : first{0, 0} {
    for (int n = 1; n <= max_order; ++n) {
      std::vector<int> subtrees;
      add_forests(n, n - 1, 0, subtrees);
      first.push_back(int(order.size()));
    }
  }
  int count(int n) const { return first[n + 1] - first[n]; }

 private:
  // Every multiset of trees (indices >= from) of total order `left` makes a tree of order n.
  void add_forests(int n, int left, int from, std::vector<int>& subtrees) {
    if (left == 0) {
      long long g = n;
      for (int u : subtrees) g *= gamma[u];
      children.push_back(subtrees);
      order.push_back(n);
      gamma.push_back(g);
      return;
    }
    for (int u = from; u < first[n] && order[u] <= left; ++u) {
      subtrees.push_back(u);
      add_forests(n, left - order[u], u, subtrees);
      subtrees.pop_back();
    }
  }
};

const RootedTrees& trees_up_to_11() {
  static const RootedTrees trees(11);
  return trees;
}

// Coefficient text in exact or 100-digit arithmetic.
bool is_rational(std::string_view text) { return text.find_first_of(".eE") == std::string_view::npos; }

template <class R>
R value(std::string_view text) {
  const auto slash = text.find('/');
  if constexpr (std::is_same_v<R, Rational>) {
    if (slash == std::string_view::npos) return Rational(bmp::cpp_int(std::string(text)));
    return Rational(bmp::cpp_int(std::string(text.substr(0, slash))),
                    bmp::cpp_int(std::string(text.substr(slash + 1))));
  } else {
    if (slash == std::string_view::npos) return R(std::string(text));
    return R(std::string(text.substr(0, slash))) / R(std::string(text.substr(slash + 1)));
  }
}

template <class R>
bool is_zero(const R& residual) {
  if constexpr (std::is_same_v<R, Rational>)
    return residual == 0;
  else
    return abs(residual) <= R("1e-60");
}

// What the conditions say about one tableau.
struct Verdict {
  bool rational = false;
  bool rows_sum_to_c = true, strictly_lower = true, fsal_consistent = true;
  int order = 0, embedded_order = 0, embedded_order2 = 0;  // highest p with all conditions <= p
};

// The elementary weights Phi(t) of every tree, computed once per tree from those of its
// subtrees: Phi_i(t) = prod_{u in t} (A Phi(u))_i; A Phi(u) is cached for each tree u.
template <class R, std::size_t S>
Verdict judge(const ButcherTableau<S>& tab, int max_order) {
  const RootedTrees& trees = trees_up_to_11();
  REQUIRE(max_order <= 11);
  Verdict v;
  std::vector<std::vector<R>> a(S, std::vector<R>(S));
  std::vector<R> c(S), b(S), b_hat(S), b_hat2(S);
  for (std::size_t i = 0; i < S; ++i) {
    c[i] = value<R>(tab.c[i].text);
    b[i] = value<R>(tab.b[i].text);
    b_hat[i] = value<R>(tab.b_hat[i].text);
    b_hat2[i] = value<R>(tab.b_hat2[i].text);
    R row{0};
    for (std::size_t j = 0; j < S; ++j) {
      a[i][j] = value<R>(tab.a[i][j].text);
      if (j >= i && a[i][j] != 0) v.strictly_lower = false;
      row += a[i][j];
    }
    if (!is_zero<R>(row - c[i])) v.rows_sum_to_c = false;
  }
  if (tab.fsal) {
    v.fsal_consistent = c[S - 1] == 1 && b[S - 1] == 0;
    for (std::size_t j = 0; j < S; ++j) v.fsal_consistent = v.fsal_consistent && a[S - 1][j] == b[j];
  }

  const int n_trees = trees.first[max_order + 1];
  std::vector<std::vector<R>> phi(n_trees, std::vector<R>(S, R(1))), a_phi(n_trees, std::vector<R>(S, R(0)));
  for (int t = 0; t < n_trees; ++t) {
    for (int u : trees.children[t])
      for (std::size_t i = 0; i < S; ++i) phi[t][i] *= a_phi[u][i];
    if (trees.order[t] < max_order)  // only subtrees of larger trees need A Phi
      for (std::size_t i = 1; i < S; ++i)
        for (std::size_t j = 0; j < i; ++j) a_phi[t][i] += a[i][j] * phi[t][j];
  }
  // The highest p <= max_order such that every condition of order <= p holds for weights w.
  auto satisfied_order = [&](const std::vector<R>& w) {
    for (int n = 1; n <= max_order; ++n)
      for (int t = trees.first[n]; t < trees.first[n + 1]; ++t) {
        R sum{0};
        for (std::size_t i = 0; i < S; ++i) sum += w[i] * phi[t][i];
        if (!is_zero<R>(sum - R(1) / R(trees.gamma[t]))) return n - 1;
      }
    return max_order;
  };
  v.order = satisfied_order(b);
  if (tab.embedded_order > 0) v.embedded_order = satisfied_order(b_hat);
  if (tab.embedded_order2 > 0) v.embedded_order2 = satisfied_order(b_hat2);
  return v;
}

template <std::size_t S>
bool all_rational(const ButcherTableau<S>& tab) {
  bool rational = true;
  for (std::size_t i = 0; i < S; ++i) {
    rational = rational && is_rational(tab.c[i].text) && is_rational(tab.b[i].text) && is_rational(tab.b_hat[i].text) &&
               is_rational(tab.b_hat2[i].text);
    for (std::size_t j = 0; j < S; ++j) rational = rational && is_rational(tab.a[i][j].text);
  }
  return rational;
}

// Checks up to one order above the highest claimed, in the arithmetic the tableau allows.
template <std::size_t S>
Verdict judge(const ButcherTableau<S>& tab) {
  const int max_order = std::max({tab.order, tab.embedded_order, tab.embedded_order2}) + 1;
  Verdict v = all_rational(tab) ? judge<Rational>(tab, max_order) : judge<Real100>(tab, max_order);
  v.rational = all_rational(tab);
  return v;
}

}  // namespace

TEST_CASE("rooted_trees_up_to_order_10_number_1205", "[tableau]") {
  // OEIS A000081: 1, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842 rooted trees with 1..11 vertices.
  const RootedTrees& trees = trees_up_to_11();
  const std::vector<int> expected = {1, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842};
  int total = 0;
  for (int n = 1; n <= 11; ++n) {
    CHECK(trees.count(n) == expected[n - 1]);
    if (n <= 10) total += trees.count(n);
  }
  CHECK(total == 1205);
  // gamma of the bushy tree of order n is n, of the tall tree n!.
  CHECK(trees.gamma[trees.first[4]] * trees.gamma[trees.first[5] - 1] == 4 * 24);
}

TEMPLATE_TEST_CASE("explicit_tableaux_satisfy_their_order_conditions_exactly", "[tableau]", EulerMethod, MidpointMethod,
                   TrapezeMethod, Rk4Method, Dopri5Method, CashKarpMethod, Verner65Method, Fehlberg78Method,
                   Dop853Method, Feagin10Method) {
  constexpr auto tab = TestType::tableau;
  const Verdict v = judge(tab);
  INFO(TestType::name << (v.rational ? " (exact rationals)" : " (100 digits, tolerance 1e-60)"));
  CHECK(v.rows_sum_to_c);
  CHECK(v.strictly_lower);
  CHECK(v.fsal_consistent);
  CHECK(v.order == tab.order);  // all conditions up to the order hold, not all of the next
  CHECK(v.embedded_order == tab.embedded_order);
  CHECK(v.embedded_order2 == tab.embedded_order2);
}

TEST_CASE("the_tableaux_with_irrational_coefficients_are_checked_in_100_digits", "[tableau]") {
  CHECK(judge(Dop853Method::tableau).rational == false);
  CHECK(judge(Feagin10Method::tableau).rational == false);
  CHECK(judge(Fehlberg78Method::tableau).rational == true);
}

TEST_CASE("a_corrupted_coefficient_fails_the_order_conditions", "[tableau]") {
  SECTION("one digit of a rational coefficient (exact arithmetic)") {
    auto tab = Dopri5Method::tableau;
    REQUIRE(tab.a[5][2].text == "46732/5247");
    tab.a[5][2].text = "46733/5247";
    const Verdict v = judge(tab);
    CHECK(v.order < 5);
    CHECK(!v.rows_sum_to_c);
  }
  SECTION("the 56th digit of a 70-digit coefficient (100-digit arithmetic)") {
    auto tab = Feagin10Method::tableau;
    std::string text(tab.a[12][7].text);
    REQUIRE(text.size() > 60);
    text[56] = text[56] == '1' ? '2' : '1';  // "5.78..": index 56 holds the 56th significant digit
    tab.a[12][7].text = text;
    const Verdict v = judge(tab);
    INFO("corrupted a[12][7] = " << text);
    CHECK(v.order < 10);
    CHECK(v.embedded_order < 8);
    CHECK(!v.rows_sum_to_c);
  }
  SECTION("a weight of the 3rd-order embedded solution of dop853") {
    auto tab = Dop853Method::tableau;
    REQUIRE(tab.b_hat2[11].text == "3/136");
    tab.b_hat2[11].text = "3/137";
    CHECK(judge(tab).embedded_order2 == 0);
  }
}
