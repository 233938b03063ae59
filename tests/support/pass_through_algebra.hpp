// An algebra that forwards only the required verbs to another one (`inner`): every optional verb
// is then the LinearAlgebra default (host round trips, host CG scalars), which tests compare
// against a backend's own versions, or count, by deriving from it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <fem/operator.hpp>

namespace fem::test {

class PassThroughAlgebra : public LinearAlgebra {
 public:
  explicit PassThroughAlgebra(LinearAlgebra& inner) : inner_(inner) {}
  [[nodiscard]] Precision precision() const override { return inner_.precision(); }

 protected:
  std::unique_ptr<Vector> do_vector(std::int64_t size) override { return inner_.vector(size); }
  void do_upload(const std::vector<double>& host, Vector& x) override { inner_.upload(host, x); }
  void do_download(const Vector& x, std::vector<double>& host) override {
    inner_.download(x, host);
  }
  void do_fill(Vector& x, double value) override { inner_.fill(x, value); }
  void do_axpby(double a, const Vector& x, double b, Vector& y) override {
    inner_.axpby(a, x, b, y);
  }
  void do_multiply(const Vector& x, const Vector& y, Vector& z) override {
    inner_.multiply(x, y, z);
  }
  double do_dot(const Vector& x, const Vector& y) override { return inner_.dot(x, y); }

  LinearAlgebra& inner_;
};

}  // namespace fem::test
