// A growable FIFO ring of trivially copyable values (packet handles, in-flight records).
// Grows by doubling and never shrinks, so a steady state allocates nothing. The header is 24
// bytes: a port holds nine of them, and they sit on the per-packet path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace models {

template <typename T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  void push_back(const T& v) {
    if (size_ == capacity()) grow();
    buf_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  // The new last slot, for the caller to fill field by field: a value written in place, where
  // one built on the stack and copied in wider words would wait for its stores to reach the
  // cache before the copy's loads (no store-to-load forwarding across sizes).
  T& push_back_slot() {
    if (size_ == capacity()) grow();
    return buf_[(head_ + size_++) & mask_];
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  T& back() { return buf_[(head_ + size_ - 1) & mask_]; }
  void pop_back() { --size_; }
  void push_front(const T& v) {
    if (size_ == capacity()) grow();
    head_ = (head_ - 1) & mask_;
    buf_[head_] = v;
    ++size_;
  }
  // i-th element from the front (0 = front).
  const T& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }

 private:
  uint32_t capacity() const { return buf_ ? mask_ + 1 : 0; }
  void grow() {
    const uint32_t cap = capacity() == 0 ? 16 : capacity() * 2;
    std::unique_ptr<T[]> bigger(new T[cap]);
    for (uint32_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & mask_];
    buf_ = std::move(bigger);
    mask_ = cap - 1;
    head_ = 0;
  }
  std::unique_ptr<T[]> buf_;
  uint32_t mask_ = 0;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace models
