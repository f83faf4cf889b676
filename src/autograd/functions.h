// Differentiable operators: what the C API and the nn layer call. Each records
// a Node when grad mode is on and an input requires grad; its backward rule
// sits next to it in autograd/fn/<family>.cpp (Note [One op, one rule]).
//
// Note [One op, one rule]: every differentiable op is one function here that
// calls its kernel (ops::<name>), then, when any_requires_grad, records a Node
// subclass defined beside it in the same file, whose apply() is the backward
// rule written with these same differentiable functions (so create_graph and
// double backward work without a second set of rules). Node names are
// torch's (MulBackward0) and tests compare them. The micrograd/tinygrad
// shape: finding an op's gradient means reading one file, and an op without
// a rule cannot be recorded by accident because recording needs its Node.
#pragma once

#include "autograd/fn/activation.h"
#include "autograd/fn/conv.h"
#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/loss.h"
#include "autograd/fn/nn.h"
#include "autograd/fn/norm.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
