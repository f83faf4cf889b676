// The backward engine: a dependency count per node, then a reverse walk that
// runs ready nodes in decreasing sequence number (torch's order).
#pragma once

#include <functional>

#include "autograd/node.h"

namespace glia {

// torch.autograd.backward: accumulates into the .grad of the graph's leaves.
// `grad_roots` may be empty (scalar roots get 1) or hold undefined entries.
void backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph);

// torch.autograd.grad: gradients of `outputs` w.r.t. `inputs`, leaving .grad alone.
// Unreachable inputs give an undefined tensor when allow_unused, else an error.
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs, bool retain_graph,
                bool create_graph, bool allow_unused);

// torch's Variable._execution_engine.queue_callback: `cb` runs once the current backward (or grad)
// has gone through the whole graph, after every other node, on the thread that runs the backward;
// callbacks run in the order queued, and may queue more. A backward that fails drops its callbacks.
// Error(State) outside a backward (from a hook or a node's apply is inside).
void queue_backward_callback(std::function<void()> cb);

}  // namespace glia
