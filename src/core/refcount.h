// Intrusive reference counting: one atomic in the object, no control block.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace glia {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;

  void ref() const noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void unref() const noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  int32_t use_count() const noexcept { return refs_.load(std::memory_order_acquire); }

  // Index of the C-API handle slot that currently names this object (0: none).
  // Owned by src/capi/; see Note [Handle registry] in capi/handles.h.
  mutable std::atomic<uint32_t> handle_slot{0};

 private:
  mutable std::atomic<int32_t> refs_{1};
};

// A strong reference. Ref<T>::adopt takes over the reference `new` created.
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  static Ref adopt(T* p) {
    Ref r;
    r.p_ = p;
    return r;
  }
  static Ref share(T* p) {
    if (p) p->ref();
    return adopt(p);
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->ref();
  }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(Ref<U> o) : p_(o.release()) {}
  ~Ref() {
    if (p_) p_->unref();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  T* release() { return std::exchange(p_, nullptr); }
  void reset() { Ref().swap(*this); }
  void swap(Ref& o) noexcept { std::swap(p_, o.p_); }
  bool operator==(const Ref& o) const { return p_ == o.p_; }

 private:
  T* p_ = nullptr;
};

template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>::adopt(new T(std::forward<Args>(args)...));
}

}  // namespace glia
