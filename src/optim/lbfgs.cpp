// torch.optim.LBFGS (torch 1.13's lbfgs.py, minFunc's algorithm): the two-loop
// recursion over the flattened parameters with a fixed step (line_search_fn
// None) or torch's strong-Wolfe line search with cubic interpolation. It runs
// on ops (dot, cat, add_, ...), so it works on any device; the numbers torch
// keeps as 0-dim tensors of the parameters' dtype (ys, ro, H_diag, al, t on
// the first iteration) are rounded to that dtype here too.
//
// State (the first parameter's, index 0 in the state dict, as torch keeps it
// in state[params[0]]), in torch's order: "func_evals", "n_iter" (int64
// 0-dim), "d" (the last direction, [N] over all N elements), "t" (float64
// 0-dim), "old_dirs", "old_stps" (torch's lists of [N] tensors, stacked to
// [k, N]), "ro" ([k]), "H_diag" (0-dim), "prev_flat_grad" ([N]), "prev_loss"
// (float64 0-dim). torch's "al" is scratch space, rewritten before it is read:
// left out. A step is not all-or-nothing: a closure that fails leaves the
// parameters where the iterations so far took them.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "ops/elementwise.h"
#include "ops/index.h"
#include "ops/linalg.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "optim/algorithms_extra.h"
#include "optim/step_common.h"

namespace glia::optim {

namespace {

using namespace detail;
using namespace ops;

class LBFGS final : public Optimizer {
 public:
  explicit LBFGS(const LBFGSOptions& o) : Optimizer(to_options(o)) {}
  const char* type_name() const override { return "LBFGS"; }

  double step_closure(const std::function<double()>& closure) override;

 protected:
  void validate(const std::vector<Option>& opts) const override {
    ParamGroup g{{}, opts};
    const double ls = g.get("line_search_fn");
    GLIA_CHECK(ls == 0 || ls == 1, InvalidArgument,
               "only 'strong_wolfe' is supported (line_search_fn: 0 None, 1 'strong_wolfe'; got ", py_float(ls), ")");
  }
  void prepare_group(ParamGroup&, Commit&) override {
    fail(Code::InvalidArgument, "step() missing 1 required positional argument: 'closure'");
  }
  bool is_scalar_state(const std::string& n) const override {
    return n == "func_evals" || n == "n_iter" || n == "t" || n == "H_diag" || n == "prev_loss";
  }
  bool is_free_state(const std::string& n) const override {
    return n == "d" || n == "prev_flat_grad" || n == "old_dirs" || n == "old_stps" || n == "ro";
  }

 private:
  // The helpers of torch's LBFGS over the group's parameters.
  Tensor gather_flat_grad(const std::vector<Tensor>& ps) const {
    std::vector<Tensor> views;
    views.reserve(ps.size());
    for (const Tensor& p : ps) {
      Tensor g = grad_of(p);
      const int64_t n = p.numel();
      views.push_back(g.defined() ? reshape(g, IntSpan(&n, 1)) : zeros(IntSpan(&n, 1), p.dtype(), p.device()));
    }
    return cat(views, 0);
  }
  static void add_grad(const std::vector<Tensor>& ps, double t, const Tensor& d) {
    int64_t offset = 0;
    for (const Tensor& p : ps) {
      const int64_t n = p.numel();
      add_(p, reshape(narrow(d, 0, offset, n), p.shape()), t);
      offset += n;
    }
  }
  static double abs_max(const Tensor& x) {
    const int64_t d0 = 0;
    return item_double(amax(abs(x), IntSpan(&d0, 1), false));
  }
  static double dot_d(const Tensor& a, const Tensor& b) { return item_double(dot(a, b)); }
  static Tensor scaled(const Tensor& x, double s) { return mul(x, full({}, s, x.dtype(), x.device())); }
};

// torch's _cubic_interpolate: the minimiser of the cubic through two points with their derivatives,
// clamped to the bounds (default: the interval between the points).
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2, const double* bounds) {
  double lo, hi;
  if (bounds) {
    lo = bounds[0];
    hi = bounds[1];
  } else if (x1 <= x2) {
    lo = x1;
    hi = x2;
  } else {
    lo = x2;
    hi = x1;
  }
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    double min_pos;
    if (x1 <= x2)
      min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2));
    else
      min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, lo), hi);
  }
  return (lo + hi) / 2.;
}

struct LineSearch {
  double f;
  Tensor g;
  double t;
  int64_t evals;
};

// torch's _strong_wolfe (c1 1e-4, c2 0.9, max_ls 25). obj(t) evaluates the loss and the flat grad at
// x + t d and puts the parameters back.
template <class Obj>
LineSearch strong_wolfe(Obj&& obj, double t, const Tensor& d, double f, Tensor g, double gtd, double tolerance_change) {
  const double c1 = 1e-4, c2 = 0.9;
  const int64_t max_ls = 25;
  const int64_t d0 = 0;
  const double d_norm = item_double(amax(abs(d), IntSpan(&d0, 1), false));
  g = clone(g);
  double f_new;
  Tensor g_new;
  std::tie(f_new, g_new) = obj(t);
  int64_t evals = 1;
  double gtd_new = item_double(dot(g_new, d));
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, clone(g_new)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, clone(g_new)};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    const double bounds[2] = {t + 0.01 * (t - t_prev), t * 10};
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds);
    t_prev = tmp;
    f_prev = f_new;
    g_prev = clone(g_new);
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj(t);
    ++evals;
    gtd_new = item_double(dot(g_new, d));
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }
  // Zoom: shrink the bracket until a point satisfies the strong Wolfe conditions.
  bool insuf_progress = false;
  size_t low = bracket_f.front() <= bracket_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1], nullptr);
    const double bmax = std::max(bracket[0], bracket[1]), bmin = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (bmax - bmin);
    if (std::min(bmax - t, t - bmin) < eps) {
      if (insuf_progress || t >= bmax || t <= bmin) {
        t = std::abs(t - bmax) < std::abs(t - bmin) ? bmax - eps : bmin + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj(t);
    ++evals;
    gtd_new = item_double(dot(g_new, d));
    ++ls_iter;
    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low]) {
      bracket[high] = t;
      bracket_f[high] = f_new;
      bracket_g[high] = clone(g_new);
      bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low];
        bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low];
        bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t;
      bracket_f[low] = f_new;
      bracket_g[low] = clone(g_new);
      bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], evals};
}

Tensor int_scalar(int64_t v) { return full({}, static_cast<double>(v), DType::Int64, Device{}); }
Tensor f64_scalar(double v) { return full({}, v, DType::Float64, Device{}); }

double LBFGS::step_closure(const std::function<double()>& closure) {
  GLIA_CHECK(num_groups() == 1, InvalidArgument, "LBFGS doesn't support per-parameter options (parameter groups)");
  ParamGroup& group = this->group(0);
  const std::vector<Tensor> ps = group.params;
  const double lr = group.get("lr"), tolerance_grad = group.get("tolerance_grad"),
               tolerance_change = group.get("tolerance_change");
  const double max_iter = group.get("max_iter"), max_eval = group.get("max_eval"),
               history_size = group.get("history_size");
  const bool wolfe = group.get("line_search_fn") != 0;
  const DType dt = ps[0].dtype();
  // A number torch holds as a 0-dim tensor of the parameters' dtype.
  auto rd = [dt](double x) { return dt == DType::Float32 ? static_cast<double>(static_cast<float>(x)) : x; };
  auto eval = [&] {
    GradModeGuard grad(true);
    return closure();
  };
  GradModeGuard no_grad(false);

  ParamState& st = state_of(ps[0]);
  // torch's state.setdefault (get_or_add may move the entries: no reference is kept).
  for (const char* name : {"func_evals", "n_iter"})
    if (Tensor& t = st.get_or_add(name); !t.defined()) t = int_scalar(0);
  int64_t func_evals = static_cast<int64_t>(item_double(*st.find("func_evals")));
  int64_t state_n_iter = static_cast<int64_t>(item_double(*st.find("n_iter")));
  auto save_counts = [&] {
    fill(*st.find("func_evals"), static_cast<double>(func_evals));
    fill(*st.find("n_iter"), static_cast<double>(state_n_iter));
  };

  const double orig_loss = eval();
  double loss = orig_loss;
  int64_t current_evals = 1;
  ++func_evals;
  save_counts();
  Tensor flat_grad = gather_flat_grad(ps);
  bool opt_cond = abs_max(flat_grad) <= tolerance_grad;
  if (opt_cond) return orig_loss;

  // The saved state.
  auto entry = [&](const char* name) {
    Tensor* t = st.find(name);
    return t ? *t : Tensor();
  };
  Tensor d = entry("d"), prev_flat_grad = entry("prev_flat_grad");
  double t = entry("t").defined() ? item_double(entry("t")) : 0;
  double h_diag = entry("H_diag").defined() ? item_double(entry("H_diag")) : 1;
  double prev_loss = entry("prev_loss").defined() ? item_double(entry("prev_loss")) : 0;
  std::vector<Tensor> old_dirs, old_stps;
  std::vector<double> ro;
  if (Tensor od = entry("old_dirs"); od.defined())
    for (int64_t i = 0; i < od.shape()[0]; ++i) old_dirs.push_back(select(od, 0, i));
  if (Tensor os = entry("old_stps"); os.defined())
    for (int64_t i = 0; i < os.shape()[0]; ++i) old_stps.push_back(select(os, 0, i));
  if (Tensor r = entry("ro"); r.defined()) {
    Tensor rc = contiguous(to_dtype(to_device(r, Device{}), DType::Float64));
    for (int64_t i = 0; i < rc.numel(); ++i) ro.push_back(rc.data_ptr<double>()[i]);
  }
  GLIA_CHECK(old_dirs.size() == old_stps.size() && old_dirs.size() == ro.size(), InvalidArgument,
             "LBFGS: the loaded state's histories differ in length (old_dirs ", old_dirs.size(), ", old_stps ",
             old_stps.size(), ", ro ", ro.size(), ")");
  std::vector<double> al(old_dirs.size());

  int64_t n_iter = 0;
  while (static_cast<double>(n_iter) < max_iter) {
    ++n_iter;
    ++state_n_iter;
    save_counts();
    if (state_n_iter == 1) {
      d = neg(flat_grad);
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      h_diag = 1;
    } else {
      // The L-BFGS update of the inverse Hessian approximation, then the two-loop recursion.
      Tensor y = sub(flat_grad, prev_flat_grad, 1);
      Tensor s = scaled(d, t);
      const double ys = dot_d(y, s);
      if (ys > 1e-10) {
        if (static_cast<double>(old_dirs.size()) == history_size) {
          old_dirs.erase(old_dirs.begin());
          old_stps.erase(old_stps.begin());
          ro.erase(ro.begin());
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(rd(1. / ys));
        h_diag = rd(ys / dot_d(y, y));
      }
      const size_t num_old = old_dirs.size();
      al.resize(std::max(al.size(), num_old));
      Tensor q = neg(flat_grad);
      for (size_t i = num_old; i-- > 0;) {
        al[i] = rd(dot_d(old_stps[i], q) * ro[i]);
        add_(q, old_dirs[i], -al[i]);
      }
      d = scaled(q, h_diag);
      for (size_t i = 0; i < num_old; ++i) {
        const double be_i = rd(dot_d(old_dirs[i], d) * ro[i]);
        add_(d, old_stps[i], rd(al[i] - be_i));
      }
    }
    if (!prev_flat_grad.defined() || prev_flat_grad.shape() != flat_grad.shape())
      prev_flat_grad = clone(flat_grad);
    else
      copy_(prev_flat_grad, flat_grad);
    prev_loss = loss;
    if (state_n_iter == 1) {
      // torch: min(1., 1. / flat_grad.abs().sum()) * lr, a tensor when the reciprocal is the smaller.
      const int64_t d0 = 0;
      const double inv = rd(1. / item_double(sum(abs(flat_grad), IntSpan(&d0, 1), false)));
      t = inv < 1. ? rd(inv * lr) : lr;
    } else {
      t = lr;
    }
    const double gtd = dot_d(flat_grad, d);
    if (gtd > -tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (wolfe) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : ps) x_init.push_back(contiguous(clone(p)));
      auto obj = [&](double step) {
        add_grad(ps, step, d);
        const double f = eval();
        Tensor g = gather_flat_grad(ps);
        for (size_t i = 0; i < ps.size(); ++i) copy_(ps[i], x_init[i]);
        return std::pair<double, Tensor>(f, g);
      };
      LineSearch ls = strong_wolfe(obj, t, d, loss, flat_grad, gtd, tolerance_change);
      loss = ls.f;
      flat_grad = ls.g;
      t = ls.t;
      ls_func_evals = ls.evals;
      add_grad(ps, t, d);
      opt_cond = abs_max(flat_grad) <= tolerance_grad;
    } else {
      add_grad(ps, t, d);
      if (static_cast<double>(n_iter) != max_iter) {
        loss = eval();
        flat_grad = gather_flat_grad(ps);
        opt_cond = abs_max(flat_grad) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    func_evals += ls_func_evals;
    save_counts();

    if (static_cast<double>(n_iter) == max_iter) break;
    if (static_cast<double>(current_evals) >= max_eval) break;
    if (opt_cond) break;
    if (abs_max(scaled(d, t)) <= tolerance_change) break;
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }

  // torch's state entries, in its order.
  const int64_t n = flat_grad.numel(), k = static_cast<int64_t>(old_dirs.size());
  auto stacked = [&](const std::vector<Tensor>& v) {
    const int64_t shape[2] = {0, n};
    if (v.empty()) return zeros(shape, dt, flat_grad.device());
    return stack(v, 0);
  };
  Tensor ro_t = empty(IntSpan(&k, 1), DType::Float64, Device{});
  for (int64_t i = 0; i < k; ++i) ro_t.data_ptr<double>()[i] = ro[static_cast<size_t>(i)];
  st.get_or_add("d") = d;
  st.get_or_add("t") = f64_scalar(t);
  st.get_or_add("old_dirs") = stacked(old_dirs);
  st.get_or_add("old_stps") = stacked(old_stps);
  st.get_or_add("ro") = to_device(to_dtype(ro_t, dt), flat_grad.device());
  st.get_or_add("H_diag") = full({}, h_diag, dt, Device{});
  st.get_or_add("prev_flat_grad") = prev_flat_grad;
  st.get_or_add("prev_loss") = f64_scalar(prev_loss);
  return orig_loss;
}

}  // namespace

std::vector<Option> to_options(const LBFGSOptions& o) {
  const int64_t max_eval = o.max_eval < 0 ? o.max_iter * 5 / 4 : o.max_eval;
  return {{"lr", {o.lr}},
          {"max_iter", {static_cast<double>(o.max_iter)}},
          {"max_eval", {static_cast<double>(max_eval)}},
          {"tolerance_grad", {o.tolerance_grad}},
          {"tolerance_change", {o.tolerance_change}},
          {"history_size", {static_cast<double>(o.history_size)}},
          {"line_search_fn", {static_cast<double>(o.line_search_fn)}}};
}

OptimizerRef make_lbfgs(std::vector<Tensor> params, const LBFGSOptions& o) {
  OptimizerRef opt = make_ref<LBFGS>(o);
  opt->add_param_group(std::move(params), {});
  return opt;
}

}  // namespace glia::optim
