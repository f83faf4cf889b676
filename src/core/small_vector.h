// A vector that keeps up to N elements inline: shapes and strides of up to 8
// dims never touch the heap (Note [No allocation on the hot path]).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <ostream>
#include <span>
#include <type_traits>

namespace glia {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { assign(n, v); }
  SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  SmallVector(std::span<const T> s) { assign(s.begin(), s.end()); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      free_heap();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { free_heap(); }

  template <class It>
  void assign(It b, It e) {
    size_t n = static_cast<size_t>(e - b);
    resize_uninit(n);
    std::copy(b, e, data_);
  }
  void assign(size_t n, T v) {
    resize_uninit(n);
    std::fill(data_, data_ + n, v);
  }
  void resize(size_t n, T v = T()) {
    size_t old = size_;
    reserve(n);
    for (size_t i = old; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t nc = std::max(n, cap_ * 2);
    T* p = static_cast<T*>(std::malloc(nc * sizeof(T)));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data_, size_ * sizeof(T));
    free_heap();
    data_ = p;
    cap_ = nc;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(size_ + 1);
    data_[size_++] = v;
  }
  void insert(size_t pos, T v) {
    push_back(v);
    std::rotate(data_ + pos, data_ + size_ - 1, data_ + size_);
  }
  void erase(size_t pos) {
    std::copy(data_ + pos + 1, data_ + size_, data_ + pos);
    --size_;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  int64_t ssize() const { return static_cast<int64_t>(size_); }
  bool empty() const { return size_ == 0; }
#ifdef GLIA_CHECKED_INDEX
  // The fuzz build (tests/fuzz/CMakeLists.txt) checks every index: a read past size() stays
  // inside the inline buffer, where AddressSanitizer cannot see it.
  T& operator[](size_t i) { return data_[checked(i)]; }
  const T& operator[](size_t i) const { return data_[checked(i)]; }
  T& back() { return data_[checked(size_ - 1)]; }
  const T& back() const { return data_[checked(size_ - 1)]; }
  size_t checked(size_t i) const {
    if (i >= size_) {
      std::fprintf(stderr, "SmallVector index %zu out of range (size %zu)\n", i, size_);
      std::abort();
    }
    return i;
  }
#else
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
#endif
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  operator std::span<const T>() const { return {data_, size_}; }
  bool operator==(const SmallVector& o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }

 private:
  void resize_uninit(size_t n) {
    if (n > cap_) {
      free_heap();
      data_ = inline_;
      cap_ = N;
      size_ = 0;
      reserve(n);
    }
    size_ = n;
  }
  void free_heap() {
    if (data_ != inline_) std::free(data_);
    data_ = inline_;
    cap_ = N;
  }
  void steal(SmallVector& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      cap_ = N;
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
  T inline_[N];
};

using Dims = SmallVector<int64_t, 8>;
using IntSpan = std::span<const int64_t>;

inline std::ostream& operator<<(std::ostream& os, const Dims& d) {
  os << '[';
  for (size_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
  return os << ']';
}

}  // namespace glia
