// out= and generic in-place writes (issue 20): see out_inplace.h.
#include "autograd/fn/out_inplace.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>
#include <unordered_set>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/log.h"

namespace glia {

namespace {

// torch's canCast: no floating -> integral, no non-bool -> bool (no complex in glia).
bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

bool same_shape(const Tensor& a, const Tensor& b) {
  IntSpan x(a.shape()), y(b.shape());
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}

// torch's has_internal_overlap: a dimension of stride 0 and size > 1 writes one location twice.
bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  return false;
}

// torch's get_overlap_status(a, b) == Partial, for dense tensors (others are "too hard" and pass,
// as in torch): same storage, overlapping byte ranges, and not exactly the same elements.
bool partial_overlap(const Tensor& a, const Tensor& b) {
  if (a.is_same(b) || a.numel() == 0 || b.numel() == 0) return false;
  if (a.impl()->storage() != b.impl()->storage()) return false;
  if (!a.is_contiguous() || !b.is_contiguous()) return false;
  int64_t a0 = a.offset() * static_cast<int64_t>(a.impl()->itemsize());
  int64_t b0 = b.offset() * static_cast<int64_t>(b.impl()->itemsize());
  int64_t a1 = a0 + a.numel() * static_cast<int64_t>(a.impl()->itemsize());
  int64_t b1 = b0 + b.numel() * static_cast<int64_t>(b.impl()->itemsize());
  if (a0 == b0 && a1 == b1) return false;  // the same elements (torch: full overlap)
  return a0 < b1 && b0 < a1;
}

// Node names of the zero-gradient nodes (in-place results that carry no gradient: eq_, lt_, ...):
// "<Op>Backward0" from the op's name, interned for the life of the process (node names are
// static strings).
const char* zero_node_name(const char* op) {
  std::string n;
  bool up = true;
  for (const char* p = op; *p; ++p) {
    if (*p == '_') {
      up = true;
      continue;
    }
    n += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(*p))) : *p;
    up = false;
  }
  n += "Backward0";
  static std::mutex mu;
  static auto* names = new std::unordered_set<std::string>();  // never freed: names outlive nodes
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(n).first->c_str();
}

struct ZeroGradBackward : Node {
  const char* nm;
  Dims shape;
  DType dtype;
  const char* name() const override { return nm; }
  TensorList apply(TensorList&& g) override { return {zeros(shape, dtype, g[0].device())}; }
};

// self's history becomes r's (Note [Generic in-place]).
void rebase(const Tensor& self, Tensor r, const char* op) {
  if (grad_mode_enabled() && r.requires_grad()) {
    if (r.dtype() != self.dtype()) r = to_dtype_with_grad(r, self.dtype());
    if (is_leaf(r)) r = clone_with_grad(r);  // a node of its own: self is no leaf afterwards
    AutogradMeta& m = autograd_meta(self);
    AutogradMeta& rm = autograd_meta(r);
    m.grad_fn = rm.grad_fn;
    m.output_nr = rm.output_nr;
    m.grad_fn_name_cache.clear();
    self.impl()->requires_grad = true;
  } else if (grad_mode_enabled() && self.requires_grad()) {
    // The result carries no gradient (comparisons): self's gradient is zero from here on.
    auto n = make_ref<ZeroGradBackward>();
    n->nm = zero_node_name(op);
    n->shape = self.shape();
    n->dtype = self.dtype();
    set_history(n.get(), {&self}, {&self});
  }
}

}  // namespace

bool write_out(const Tensor& out, const Tensor& result, const TensorList& inputs, const char* op) {
  GLIA_CHECK(!(grad_mode_enabled() && (result.requires_grad() || out.requires_grad())), State, op,
             "(): functions with out=... arguments don't support automatic differentiation, but one of the "
             "arguments requires grad.");
  GLIA_CHECK(!out.impl()->is_inference || inference_mode(), State,
             "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
             "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
  GLIA_CHECK(out.device() == result.device(), Device, "Expected out tensor to have device ", result.device(),
             ", but got ", out.device(), " instead");
  GLIA_CHECK(can_cast(result.dtype(), out.dtype()), DType, "result type ", scalar_type_name(result.dtype()),
             " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
  GLIA_CHECK(!has_internal_overlap(out), InvalidArgument,
             "unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.");
  for (const Tensor& in : inputs)
    GLIA_CHECK(!in.defined() || !partial_overlap(out, in), InvalidArgument,
               "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
               "single memory location. Please clone() the tensor before performing the operation.");
  if (result.is_same(out)) {
    bump_version(out);
    return false;
  }
  bool warned = false;
  Tensor src = result;
  if (!same_shape(out, result)) {
    if (out.numel() != 0) {
      warned = true;
      if (log_enabled(LogLevel::Warning))
        log(LogLevel::Warning,
            detail::concat("An output with one or more elements was resized since it had shape ", IntSpan(out.shape()),
                           ", which does not match the required output shape ", IntSpan(result.shape()),
                           ". This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                           "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                           "inplace, to zero elements with t.resize_(0)."));
    }
    uint32_t version = out.impl()->storage()->version.load(std::memory_order_relaxed);
    Tensor fresh = empty(result.shape(), out.dtype(), out.device());
    fresh.impl()->storage()->version.store(version, std::memory_order_relaxed);
    out.impl()->set_data(*fresh.impl());
  } else if (result.impl()->storage() == out.impl()->storage()) {
    src = clone(result);  // result aliases out's memory (a view the function returned): read before writing
  }
  copy_into(out, src);
  bump_version(out);
  return warned;
}

// Note [Generic in-place]: an in-place variant computed out of place (r = f(self, ...), with self
// cloned first when it requires grad, so that r's node saved a tensor that the write leaves
// alone) and written back here. self's grad_fn becomes r's: after x.exp_(), x.grad_fn is
// ExpBackward0 as in torch, whose edge leads (through the clone's CloneBackward0) to where x's
// gradient flowed before. A result without gradient (comparisons) leaves a zero-gradient node.
void assign_(const Tensor& self, const Tensor& result, const char* op) {
  check_inplace(self, op);
  GLIA_CHECK(can_cast(result.dtype(), self.dtype()), DType, "result type ", scalar_type_name(result.dtype()),
             " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  GLIA_CHECK(same_shape(self, result), Shape, "output with shape ", IntSpan(self.shape()),
             " doesn't match the broadcast shape ", IntSpan(result.shape()));
  GLIA_CHECK(self.device() == result.device(), Device,
             "Expected all tensors to be on the same device, but found at "
             "least two devices, ",
             self.device(), " and ", result.device(), "!");
  if (!result.is_same(self)) {
    if (result.impl()->storage() == self.impl()->storage())
      copy_into(self, clone(result));
    else
      copy_into(self, result);
  }
  bump_version(self);
  rebase(self, result, op);
}

void set_geometry_(const Tensor& self, const Tensor& view, const char* op) {
  check_inplace(self, op);
  GLIA_CHECK(view.impl()->storage() == self.impl()->storage() && view.dtype() == self.dtype(), InvalidArgument, op,
             ": the new geometry must be a view of self's storage with self's dtype");
  if (!view.is_same(self)) self.impl()->set_data(*view.impl());
  bump_version(self);
  rebase(self, view, op);
}

}  // namespace glia
