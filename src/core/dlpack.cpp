#include "core/dlpack.h"

#include <dlpack/dlpack.h>

#include <memory>

namespace glia {

namespace {

// DLPack 0.8 added kDLBool = 6; Debian's 0.6 header does not have it yet, so
// the value is spelled out here (numpy >= 1.25 and torch >= 2.0 use it).
constexpr uint8_t kBoolCode = 6;
#if DLPACK_VERSION >= 80
static_assert(kDLBool == kBoolCode);
#endif

const char* code_name(uint8_t code) {
  switch (code) {
    case kDLInt:
      return "kDLInt";
    case kDLUInt:
      return "kDLUInt";
    case kDLFloat:
      return "kDLFloat";
    case kDLOpaqueHandle:
      return "kDLOpaqueHandle";
    case kDLBfloat:
      return "kDLBfloat";
    case kDLComplex:
      return "kDLComplex";
    case kBoolCode:
      return "kDLBool";
  }
  return "unknown";
}

const char* device_name(int type) {
  switch (type) {
    case kDLCPU:
      return "kDLCPU";
    case kDLCUDA:
      return "kDLCUDA";
    case kDLCUDAHost:
      return "kDLCUDAHost";
    case kDLOpenCL:
      return "kDLOpenCL";
    case kDLVulkan:
      return "kDLVulkan";
    case kDLMetal:
      return "kDLMetal";
    case kDLVPI:
      return "kDLVPI";
    case kDLROCM:
      return "kDLROCM";
    case kDLROCMHost:
      return "kDLROCMHost";
    case kDLExtDev:
      return "kDLExtDev";
    case kDLCUDAManaged:
      return "kDLCUDAManaged";
  }
  return "unknown";
}

DType import_dtype(DLDataType t) {
  if (t.lanes == 1) {
    switch (t.code) {
      case kDLFloat:
        if (t.bits == 16) return DType::Float16;
        if (t.bits == 32) return DType::Float32;
        if (t.bits == 64) return DType::Float64;
        break;
      case kDLBfloat:
        if (t.bits == 16) return DType::BFloat16;
        break;
      case kDLInt:
        if (t.bits == 8) return DType::Int8;
        if (t.bits == 16) return DType::Int16;
        if (t.bits == 32) return DType::Int32;
        if (t.bits == 64) return DType::Int64;
        break;
      case kDLUInt:
        if (t.bits == 8) return DType::UInt8;
        break;
      case kBoolCode:
        if (t.bits == 8) return DType::Bool;
        break;
    }
  }
  fail(Code::DType, "from_dlpack: unsupported DLPack dtype (code ", int(t.code), " = ", code_name(t.code), ", bits ",
       int(t.bits), ", lanes ", t.lanes,
       "); glia has float16/32/64, bfloat16, int8/16/32/64, uint8 and bool, all with 1 lane");
}

DLDataType export_dtype(DType t) {
  uint8_t bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
    case DType::Float32:
    case DType::Float64:
    case DType::Float16:
      return {kDLFloat, bits, 1};
    case DType::BFloat16:
      return {kDLBfloat, bits, 1};
    case DType::Int64:
    case DType::Int32:
    case DType::Int16:
    case DType::Int8:
      return {kDLInt, bits, 1};
    case DType::UInt8:
      return {kDLUInt, bits, 1};
    case DType::Bool:
      return {kBoolCode, bits, 1};
  }
  fail(Code::Internal, "to_dlpack: tensor has an invalid dtype ", int(t));
}

// The storage's deleter context. from_blob calls the deleter on its own
// failure paths too, where the DLPack producer must keep ownership, so the
// producer's deleter only runs once the import has succeeded (`armed`).
struct Import {
  DLManagedTensor* managed;
  bool armed = false;
};

void release_import(void* context, void*) {
  Import* imp = static_cast<Import*>(context);
  if (imp->armed && imp->managed->deleter) imp->managed->deleter(imp->managed);
  delete imp;
}

// One allocation per export: the DLManagedTensor, the arrays it points to and
// the reference that keeps glia's tensor (and so its storage) alive.
struct Export {
  DLManagedTensor managed{};
  Ref<TensorImpl> impl;
  Dims shape, strides;
};

void release_export(DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); }

}  // namespace

Tensor from_dlpack(DLManagedTensor* m) {
  GLIA_CHECK(m != nullptr, InvalidArgument, "from_dlpack: the DLManagedTensor is NULL");
  const DLTensor& t = m->dl_tensor;
  GLIA_CHECK(t.device.device_type == kDLCPU, Device, "from_dlpack: tensor is on device ",
             device_name(t.device.device_type), ":", t.device.device_id, " (device_type ", int(t.device.device_type),
             "), glia can only use kDLCPU memory",
             t.device.device_type == kDLCUDA ? " (the CUDA backend has no kernels in this build)" : "");
  DType dtype = import_dtype(t.dtype);
  GLIA_CHECK(t.ndim >= 0, InvalidArgument, "from_dlpack: negative ndim ", t.ndim);
  GLIA_CHECK(t.shape || t.ndim == 0, InvalidArgument, "from_dlpack: shape is NULL with ndim ", t.ndim);
  IntSpan shape(t.shape, static_cast<size_t>(t.ndim));
  check_shape("from_dlpack", shape);
  IntSpan strides = t.strides ? IntSpan(t.strides, shape.size()) : IntSpan();
  for (size_t i = 0; i < strides.size(); ++i) {
    GLIA_CHECK(strides[i] >= 0, InvalidArgument, "from_dlpack: negative stride ", strides[i], " at index ", i,
               " (glia has no negative strides; make the tensor contiguous first)");
  }
  size_t size = itemsize(dtype);
  GLIA_CHECK(t.byte_offset % size == 0, InvalidArgument, "from_dlpack: byte_offset ", t.byte_offset,
             " is not a multiple of the element size ", size, " of ", dtype_name(dtype));
  int64_t n = checked_numel(shape);
  GLIA_CHECK(t.data || n == 0, InvalidArgument, "from_dlpack: data is NULL for a tensor of ", n, " elements");
  void* data = t.data ? static_cast<char*>(t.data) + t.byte_offset : nullptr;

  Import* imp = new Import{m};
  Tensor out = from_blob(data, shape, strides, dtype, Device{}, release_import, imp);
  imp->armed = true;
  return out;
}

DLManagedTensor* to_dlpack(const Tensor& t) {
  DLDataType dtype = export_dtype(t.dtype());
  std::unique_ptr<Export> e(new Export{});
  e->impl = t.ref();
  e->shape = t.shape();
  e->strides = t.strides();
  DLTensor& d = e->managed.dl_tensor;
  d.data = t.data();
  d.device = t.device().is_cpu() ? DLDevice{kDLCPU, 0} : DLDevice{kDLCUDA, t.device().index};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dtype;
  d.shape = e->shape.data();
  d.strides = e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e.get();
  e->managed.deleter = release_export;
  return &e.release()->managed;
}

}  // namespace glia
