// Small fixed-size 3x3 tensor algebra usable on host and device.
//
// Material laws are written against this type so that one source compiles for every backend.
// It is deliberately tiny: Eigen is used on the host for everything larger.
#pragma once

#include <cstring>

#include "fem/config.hpp"
#include "fem/dual.hpp"

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

/// Cofactor matrix cof(a) = det(a) a^-T, without a division: d det(a) / d a. For a deformation
/// gradient it maps a pressure p to the first Piola-Kirchhoff stress J p F^-T = p cof(F).
template <class T>
FEM_INLINE Mat3<T> cofactor(const Mat3<T>& a) {
  Mat3<T> r;
  r.m[0][0] = a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1];
  r.m[0][1] = a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2];
  r.m[0][2] = a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0];
  r.m[1][0] = a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2];
  r.m[1][1] = a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0];
  r.m[1][2] = a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1];
  r.m[2][0] = a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1];
  r.m[2][1] = a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2];
  r.m[2][2] = a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0];
  return r;
}

template <class T>
FEM_INLINE Mat3<T> inverse(const Mat3<T>& a) {
  return inverse(a, det(a));
}

/// Cube root of x >= 0 in the precision of the argument, computed with +, *, / only (a bit-level
/// first guess refined by Newton steps), so that the CPU and GPU builds round identically where
/// the library cbrt of each platform would differ in the last bit.
template <class T>
FEM_INLINE T cube_root(T x) {
  if (x == T(0)) return T(0);
  T y;
  if constexpr (sizeof(T) == 4) {
    unsigned int i;
    memcpy(&i, &x, 4);
    i = i / 3u + 709921077u;  // exponent / 3, mantissa roughly (Kahan's constant)
    memcpy(&y, &i, 4);
  } else {
    unsigned long long i;
    memcpy(&i, &x, 8);
    unsigned long long hi = i >> 32;
    hi = hi / 3u + 715094163u;
    i = hi << 32;
    memcpy(&y, &i, 8);
  }
  // The first guess is within ~6 %; Newton doubles the correct digits each step.
  constexpr int iterations = sizeof(T) == 4 ? 4 : 5;
  for (int k = 0; k < iterations; ++k) y = y - (y * y * y - x) / (T(3) * y * y);
  return y;
}

/// The cube root of a dual number: d(x^(1/3)) = dx / (3 x^(2/3)).
template <class T>
FEM_INLINE Dual<T> cube_root(const Dual<T>& x) {
  const T y = cube_root(x.v);
  return {y, y == T(0) ? T(0) : x.d / (T(3) * y * y)};
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
