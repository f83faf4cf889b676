// Differentiable operators: what the C API and the nn layer call. Each records
// a Node when grad mode is on and an input requires grad; its backward rule
// sits next to it in autograd/fn/<family>.cpp (Note [One op, one rule]).
#pragma once

#include "autograd/fn/activation.h"
#include "autograd/fn/activation_extra.h"
#include "autograd/fn/conv.h"
#include "autograd/fn/convnd.h"
#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/loss.h"
#include "autograd/fn/loss_extra.h"
#include "autograd/fn/math.h"
#include "autograd/fn/nn.h"
#include "autograd/fn/norm.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/fn/shape_ops.h"
