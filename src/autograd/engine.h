// The backward engine: a dependency count per node, then a reverse walk that
// runs ready nodes in decreasing sequence number (torch's order).
#pragma once

#include "autograd/node.h"

namespace glia {

// torch.autograd.backward: accumulates into the .grad of the graph's leaves.
// `grad_roots` may be empty (scalar roots get 1) or hold undefined entries.
void backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph);

// torch.autograd.grad: gradients of `outputs` w.r.t. `inputs`, leaving .grad alone.
// Unreachable inputs give an undefined tensor when allow_unused, else an error.
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs, bool retain_graph,
                bool create_graph, bool allow_unused);

}  // namespace glia
