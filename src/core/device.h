#pragma once

#include <cstdint>
#include <ostream>

namespace glia {

// Device types as glia.h numbers them (glia_device_type). PrivateUse1 is the
// slot of an out-of-tree backend (the test device, an accelerator plugin): it
// prints with the name its backend registers ("testdevice:1").
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, PrivateUse1 = 2 };
constexpr int kDeviceTypeCount = 3;

struct Device {
  DeviceType type = DeviceType::CPU;
  int32_t index = 0;
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool operator==(const Device&) const = default;
};

// "cpu", "cuda", or the name of the backend loaded in the PrivateUse1 slot (core/backend.cpp).
const char* device_type_name(DeviceType t);

inline std::ostream& operator<<(std::ostream& os, Device d) {
  if (d.is_cpu()) return os << "cpu";
  return os << device_type_name(d.type) << ':' << d.index;
}

}  // namespace glia
