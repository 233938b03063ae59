// Small fixed-size 3x3 tensor algebra usable on host and device.
//
// Material laws are written against this type so that one source compiles for every backend.
// It is deliberately tiny: Eigen is used on the host for everything larger.
#pragma once

#include <cmath>

#include "fem/config.hpp"

namespace fem {

template <class T>
struct Mat3 {
  T m[3][3];

  FEM_HD T& operator()(int i, int j) { return m[i][j]; }
  FEM_HD const T& operator()(int i, int j) const { return m[i][j]; }

  FEM_HD static Mat3 zero() {
    Mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r.m[i][j] = T(0);
    return r;
  }
  FEM_HD static Mat3 identity() {
    Mat3 r = zero();
    r.m[0][0] = r.m[1][1] = r.m[2][2] = T(1);
    return r;
  }
};

template <class T>
FEM_INLINE Mat3<T> operator+(const Mat3<T>& a, const Mat3<T>& b) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][j] + b.m[i][j];
  return r;
}

template <class T>
FEM_INLINE Mat3<T> operator-(const Mat3<T>& a, const Mat3<T>& b) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[i][j] - b.m[i][j];
  return r;
}

template <class T>
FEM_INLINE Mat3<T> operator*(T s, const Mat3<T>& a) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = s * a.m[i][j];
  return r;
}

/// Matrix product a*b.
template <class T>
FEM_INLINE Mat3<T> operator*(const Mat3<T>& a, const Mat3<T>& b) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
  return r;
}

template <class T>
FEM_INLINE Mat3<T> transpose(const Mat3<T>& a) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[j][i];
  return r;
}

/// a^T * a, e.g. the right Cauchy-Green tensor C = F^T F.
template <class T>
FEM_INLINE Mat3<T> transpose_times_self(const Mat3<T>& a) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = a.m[0][i] * a.m[0][j] + a.m[1][i] * a.m[1][j] + a.m[2][i] * a.m[2][j];
  return r;
}

template <class T>
FEM_INLINE T trace(const Mat3<T>& a) {
  return a.m[0][0] + a.m[1][1] + a.m[2][2];
}

template <class T>
FEM_INLINE T det(const Mat3<T>& a) {
  return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
         a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
         a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}

/// Inverse of a symmetric positive-definite or general matrix, given its determinant.
template <class T>
FEM_INLINE Mat3<T> inverse(const Mat3<T>& a, T det_a) {
  const T s = T(1) / det_a;
  Mat3<T> r;
  r.m[0][0] = s * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]);
  r.m[0][1] = s * (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]);
  r.m[0][2] = s * (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]);
  r.m[1][0] = s * (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]);
  r.m[1][1] = s * (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]);
  r.m[1][2] = s * (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]);
  r.m[2][0] = s * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
  r.m[2][1] = s * (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]);
  r.m[2][2] = s * (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]);
  return r;
}

template <class T>
FEM_INLINE Mat3<T> inverse(const Mat3<T>& a) {
  return inverse(a, det(a));
}

/// Real cube root in the precision of the argument (host and device).
template <class T>
FEM_INLINE T cube_root(T x) {
  using std::cbrt;
  return cbrt(x);
}

/// Double contraction a : b.
template <class T>
FEM_INLINE T ddot(const Mat3<T>& a, const Mat3<T>& b) {
  T s = T(0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += a.m[i][j] * b.m[i][j];
  return s;
}

}  // namespace fem
