// A FIFO queue on a power-of-two ring that doubles when full: the per-server queues of the
// queueing labs, with no allocation once it has grown to the deepest queue of the run.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace taillab {

template <class T>
class FifoRing {
  public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    void push(T v) {
        if (size_ == buf_.size()) grow();
        buf_[(head_ + size_) & (buf_.size() - 1)] = std::move(v);
        ++size_;
    }
    T pop() {
        T v = std::move(buf_[head_]);
        head_ = (head_ + 1) & (buf_.size() - 1);
        --size_;
        return v;
    }

  private:
    void grow() {
        std::vector<T> next(buf_.empty() ? 16 : buf_.size() * 2);
        for (std::size_t i = 0; i < size_; ++i)
            next[i] = std::move(buf_[(head_ + i) & (buf_.size() - 1)]);
        buf_ = std::move(next);
        head_ = 0;
    }
    std::vector<T> buf_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

}  // namespace taillab
