// Options structs (C-API.md "Options structs"): the first field is struct_size,
// the library reads only the fields struct_size covers and keeps the defaults
// for the rest (an older caller's smaller struct). Shared by the entry points
// that take the same struct (glia_max_pool2d and glia_nn_max_pool2d, ...).
#pragma once

#include <cstddef>
#include <type_traits>

#include "autograd/fn/conv.h"
#include "capi/api.h"
#include "ops/loss.h"

namespace glia::capi {

// Throws unless o->struct_size is plausible; `init` names the options' _init function.
template <class S>
void check_struct_size(const S* o, const char* fn, const char* init) {
  GLIA_CHECK(o->struct_size >= sizeof(size_t) && o->struct_size <= 65536, InvalidArgument, fn,
             ": options->struct_size is ", o->struct_size, ", expected ", sizeof(S), " (use ", init, ")");
}

// Whether o->struct_size covers `field`.
#define GLIA_COVERS(o, field) \
  ((o)->struct_size >= offsetof(std::remove_cvref_t<decltype(*(o))>, field) + sizeof((o)->field))
#define GLIA_READ(o, field, dst) \
  if (GLIA_COVERS(o, field)) (dst) = (o)->field
#define GLIA_READ_FLAG(o, field, dst) \
  if (GLIA_COVERS(o, field)) (dst) = (o)->field != 0
#define GLIA_READ_PAIR(o, field, dst) \
  if (GLIA_COVERS(o, field)) {        \
    (dst)[0] = (o)->field[0];         \
    (dst)[1] = (o)->field[1];         \
  }

// The pools' options (NULL: torch's defaults).
MaxPool2dOptions max_pool2d_options_arg(const glia_max_pool2d_options* o, const char* fn);
AvgPool2dOptions avg_pool2d_options_arg(const glia_avg_pool2d_options* o, const char* fn);

// The losses' reduction, validated; `arg` names it in the error.
Reduction reduction_arg(int32_t r, const char* fn, const char* arg = "reduction");
// The caller's loss options with the defaults of the _init function for NULL or
// fields struct_size does not cover (struct_size validated, values not).
glia_nll_loss_options nll_loss_options_arg(const glia_nll_loss_options* o, const char* fn);
glia_cross_entropy_options cross_entropy_options_arg(const glia_cross_entropy_options* o, const char* fn);

}  // namespace glia::capi
