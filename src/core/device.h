#pragma once

#include <cstdint>
#include <ostream>

namespace glia {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int32_t index = 0;
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool operator==(const Device&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, Device d) {
  if (d.is_cpu()) return os << "cpu";
  return os << "cuda:" << d.index;
}

}  // namespace glia
