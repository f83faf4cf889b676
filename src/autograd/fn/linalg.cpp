#include "autograd/fn/linalg.h"

#include "autograd/fn/elementwise.h"
#include "autograd/fn/shape.h"
#include "ops/linalg.h"

namespace glia {

namespace {

Tensor scaled(const Tensor& g, double s) { return s == 1.0 ? g : mul(g, ops::wrapped_scalar(s, false)); }
Tensor t2(const Tensor& m) { return transpose(m, 0, 1); }
Dims prefix(const Dims& s, int64_t n) { return Dims(IntSpan(s.data(), static_cast<size_t>(n))); }

// A column-major (transposed contiguous) matrix, as w.t() in linear.
bool column_major(const Tensor& m) { return m.size(0) > 1 && m.stride(0) == 1 && m.stride(1) == m.size(0); }

// torch's mm_mat1_backward / mm_mat2_backward: the gradient of a column-major operand is computed
// in column-major layout (the transpose of a contiguous product), so that the gradient of linear's
// weight (through w.t()) arrives contiguous instead of being transposed by a strided copy.
// a_col / b_col: the operand was column-major in the forward.
Tensor mat1_grad(const Tensor& g, bool a_col, const Tensor& b) { return a_col ? t2(mm(b, t2(g))) : mm(g, t2(b)); }
Tensor mat2_grad(const Tensor& g, const Tensor& a, bool b_col) { return b_col ? t2(mm(t2(g), a)) : mm(t2(a), g); }

struct MmBackward : Node {
  SavedTensor a, b;
  bool a_col = false, b_col = false;
  const char* name() const override { return "MmBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = mat1_grad(g[0], a_col, b.unpack(name()));
    if (next_edges[1].valid()) r[1] = mat2_grad(g[0], a.unpack(name()), b_col);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct BmmBackward : Node {
  SavedTensor a, b;
  const char* name() const override { return "BmmBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = bmm(g[0], transpose(b.unpack(name()), 1, 2));
    if (next_edges[1].valid()) r[1] = bmm(transpose(a.unpack(name()), 1, 2), g[0]);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct AddmmBackward : Node {
  SavedTensor a, b;
  bool a_col = false, b_col = false;
  Dims bias_shape;
  double beta = 1, alpha = 1;
  const char* name() const override { return "AddmmBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(3);
    if (next_edges[0].valid()) r[0] = scaled(sum_to(g[0], bias_shape), beta);
    if (next_edges[1].valid()) r[1] = scaled(mat1_grad(g[0], a_col, b.unpack(name())), alpha);
    if (next_edges[2].valid()) r[2] = scaled(mat2_grad(g[0], a.unpack(name()), b_col), alpha);
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct DotBackward : Node {
  SavedTensor a, b;
  const char* name() const override { return "DotBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = mul(g[0], b.unpack(name()));
    if (next_edges[1].valid()) r[1] = mul(g[0], a.unpack(name()));
    return r;
  }
  void release_variables() override {
    a.release();
    b.release();
  }
};

struct MvBackward : Node {
  SavedTensor m, v;
  const char* name() const override { return "MvBackward0"; }
  TensorList apply(TensorList&& g) override {
    TensorList r(2);
    if (next_edges[0].valid()) r[0] = mm(unsqueeze(g[0], 1), unsqueeze(v.unpack(name()), 0));
    if (next_edges[1].valid()) r[1] = mv(t2(m.unpack(name())), g[0]);
    return r;
  }
  void release_variables() override {
    m.release();
    v.release();
  }
};

template <class N>
void save2(N* n, const Tensor& a, const Tensor& b) {
  n->a = SavedTensor(a);
  n->b = SavedTensor(b);
  if constexpr (std::is_same_v<N, MmBackward> || std::is_same_v<N, AddmmBackward>) {
    n->a_col = column_major(a);
    n->b_col = column_major(b);
  }
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  Tensor out = ops::mm(a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<MmBackward>();
    save2(n.get(), a, b);
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  Tensor out = ops::bmm(a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<BmmBackward>();
    save2(n.get(), a, b);
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  Tensor out = ops::dot(a, b);
  if (any_requires_grad({&a, &b})) {
    auto n = make_ref<DotBackward>();
    save2(n.get(), a, b);
    set_history(n.get(), {&a, &b}, {&out});
  }
  return out;
}

Tensor mv(const Tensor& m, const Tensor& v) {
  Tensor out = ops::mv(m, v);
  if (any_requires_grad({&m, &v})) {
    auto n = make_ref<MvBackward>();
    n->m = SavedTensor(m);
    n->v = SavedTensor(v);
    set_history(n.get(), {&m, &v}, {&out});
  }
  return out;
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double beta, double alpha) {
  Tensor out = ops::addmm(bias, a, b, beta, alpha);
  if (any_requires_grad({&bias, &a, &b})) {
    auto n = make_ref<AddmmBackward>();
    save2(n.get(), a, b);
    n->bias_shape = bias.shape();
    n->beta = beta;
    n->alpha = alpha;
    set_history(n.get(), {&bias, &a, &b}, {&out});
  }
  return out;
}

// torch 1.13's matmul (aten/src/ATen/native/LinearAlgebra.cpp): the same
// decomposition, so results and gradients follow torch's.
Tensor matmul(const Tensor& a, const Tensor& b) {
  int64_t da = a.dim(), db = b.dim();
  GLIA_CHECK(da != 0 && db != 0, Shape, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ",
             db, "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), Dims{0}, false);
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && (db == 1 || db == 2)) {
    // Fold a's batch dims into its rows: one GEMM.
    Dims out_shape = prefix(a.shape(), da - 1);
    int64_t rows = 1;
    for (int64_t s : out_shape) rows *= s;
    Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
    if (db == 2) out_shape.push_back(b.size(1));
    Tensor a2 = reshape(a, Dims{rows, a.size(-1)});
    return reshape(mm(a2, b2), out_shape);
  }
  // Batched, with broadcasting of the batch dims.
  int64_t n = da > 1 ? a.size(-2) : 1, m1 = a.size(-1);
  int64_t m2 = db > 1 ? b.size(-2) : b.size(0), p = db > 1 ? b.size(-1) : 1;
  Dims ba = prefix(a.shape(), da - std::min<int64_t>(da, 2));
  Dims bb = prefix(b.shape(), db - std::min<int64_t>(db, 2));
  Dims batch = ops::broadcast_shapes("matmul", ba, bb);
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  Dims ea = batch, eb = batch;
  ea.push_back(n);
  ea.push_back(m1);
  eb.push_back(m2);
  eb.push_back(p);
  Tensor a3 = reshape(expand(da == 1 ? unsqueeze(a, 0) : a, ea), Dims{nb, n, m1});
  Tensor b3 = reshape(expand(db == 1 ? unsqueeze(b, 1) : b, eb), Dims{nb, m2, p});
  Dims out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(p);
  return reshape(bmm(a3, b3), out_shape);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& bias) {
  Tensor wt = w.dim() == 2 ? t2(w) : w;
  if (x.dim() == 2 && w.dim() == 2) return bias.defined() ? addmm(bias, x, wt) : mm(x, wt);
  if (x.dim() >= 3 && w.dim() == 2) {
    Dims out_shape = prefix(x.shape(), x.dim() - 1);
    int64_t rows = 1;
    for (int64_t s : out_shape) rows *= s;
    out_shape.push_back(w.size(0));
    Tensor x2 = reshape(x, Dims{rows, x.size(-1)});
    return view(bias.defined() ? addmm(bias, x2, wt) : mm(x2, wt), out_shape);
  }
  Tensor out = matmul(x, wt);
  return bias.defined() ? add(out, bias) : out;
}

}  // namespace glia
