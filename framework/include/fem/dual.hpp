// Forward-mode dual numbers: a value and its derivative along one direction.
//
// Material laws are templates over the scalar type, so evaluating `stress<Dual<T>>(p, F + e dF)`
// gives P(F) in the values and dP = dP/dF : dF in the derivatives, with no code in the material:
// that is where the implicit solver's tangent comes from (docs/implicit.md). Arithmetic types
// convert implicitly into a Dual with zero derivative, so laws written with `T(1)` or `T(0.5)`
// compile unchanged; comparisons look at values only, so branches (tension-only fibres, say)
// follow the value. Functions a law calls must have a Dual overload: fem::cube_root (tensor.hpp),
// fem::sqrt, fem::exp and fem::log below; call them unqualified or as fem:: so that the overload
// is found.
//
// C++17: the CUDA builds of the kernels compile this header.
#pragma once

#include <cmath>
#include <type_traits>

#include "fem/config.hpp"

namespace fem {

template <class T>
struct Dual {
  T v;  ///< value
  T d;  ///< derivative along the direction of the evaluation

  Dual() = default;
  FEM_HD constexpr Dual(T value, T derivative) : v(value), d(derivative) {}
  /// A constant: any arithmetic value, derivative zero.
  template <class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  FEM_HD constexpr Dual(A value) : v(static_cast<T>(value)), d(T(0)) {}  // NOLINT: implicit

  /// The value (branches and bit tricks of a law work on it).
  template <class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0>
  FEM_HD constexpr explicit operator A() const {
    return static_cast<A>(v);
  }

  FEM_HD constexpr Dual operator-() const { return {-v, -d}; }
  FEM_HD constexpr Dual operator+() const { return *this; }
  FEM_HD constexpr Dual& operator+=(const Dual& b) {
    v += b.v;
    d += b.d;
    return *this;
  }
  FEM_HD constexpr Dual& operator-=(const Dual& b) {
    v -= b.v;
    d -= b.d;
    return *this;
  }
  FEM_HD constexpr Dual& operator*=(const Dual& b) {
    d = d * b.v + v * b.d;
    v *= b.v;
    return *this;
  }
  FEM_HD constexpr Dual& operator/=(const Dual& b) {
    const T inv = T(1) / b.v;
    v *= inv;
    d = (d - v * b.d) * inv;
    return *this;
  }
};

/// The scalar a type is built on: T for Dual<T>, the type itself otherwise. Laws that pick
/// constants by precision (sizeof) or reinterpret bits should ask it, not sizeof(T).
template <class S>
struct real_type {
  using type = S;
};
template <class T>
struct real_type<Dual<T>> {
  using type = T;
};
template <class S>
using real_t = typename real_type<S>::type;

template <class S>
inline constexpr bool is_dual_v = false;
template <class T>
inline constexpr bool is_dual_v<Dual<T>> = true;

/// The value of a scalar (itself for a plain one).
template <class S>
FEM_INLINE constexpr real_t<S> value_of(const S& x) {
  if constexpr (is_dual_v<S>)
    return x.v;
  else
    return x;
}

// Binary operators: Dual with Dual, and with any arithmetic value on either side (converted to
// the Dual's scalar first, so float duals stay float).
template <class T>
FEM_INLINE constexpr Dual<T> operator+(Dual<T> a, const Dual<T>& b) {
  return a += b;
}
template <class T>
FEM_INLINE constexpr Dual<T> operator-(Dual<T> a, const Dual<T>& b) {
  return a -= b;
}
template <class T>
FEM_INLINE constexpr Dual<T> operator*(Dual<T> a, const Dual<T>& b) {
  return a *= b;
}
template <class T>
FEM_INLINE constexpr Dual<T> operator/(Dual<T> a, const Dual<T>& b) {
  return a /= b;
}

#define FEM_DUAL_MIXED_OPERATOR(OP)                                               \
  template <class T, class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0> \
  FEM_INLINE constexpr Dual<T> operator OP(const Dual<T>& a, A b) {               \
    return a OP Dual<T>(b);                                                       \
  }                                                                               \
  template <class T, class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0> \
  FEM_INLINE constexpr Dual<T> operator OP(A a, const Dual<T>& b) {               \
    return Dual<T>(a) OP b;                                                       \
  }
FEM_DUAL_MIXED_OPERATOR(+)
FEM_DUAL_MIXED_OPERATOR(-)
FEM_DUAL_MIXED_OPERATOR(*)
FEM_DUAL_MIXED_OPERATOR(/)
#undef FEM_DUAL_MIXED_OPERATOR

// Comparisons look at the value.
#define FEM_DUAL_COMPARISON(OP)                                                   \
  template <class T>                                                              \
  FEM_INLINE constexpr bool operator OP(const Dual<T>& a, const Dual<T>& b) {     \
    return a.v OP b.v;                                                            \
  }                                                                               \
  template <class T, class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0> \
  FEM_INLINE constexpr bool operator OP(const Dual<T>& a, A b) {                  \
    return a.v OP static_cast<T>(b);                                              \
  }                                                                               \
  template <class T, class A, std::enable_if_t<std::is_arithmetic_v<A>, int> = 0> \
  FEM_INLINE constexpr bool operator OP(A a, const Dual<T>& b) {                  \
    return static_cast<T>(a) OP b.v;                                              \
  }
FEM_DUAL_COMPARISON(==)
FEM_DUAL_COMPARISON(!=)
FEM_DUAL_COMPARISON(<)
FEM_DUAL_COMPARISON(<=)
FEM_DUAL_COMPARISON(>)
FEM_DUAL_COMPARISON(>=)
#undef FEM_DUAL_COMPARISON

/// f(x) for a function with value fx and derivative dfx at x.v: the chain rule.
template <class T>
FEM_INLINE constexpr Dual<T> chain(const Dual<T>& x, T fx, T dfx) {
  return {fx, dfx * x.d};
}

// Elementary functions, plain and dual. The plain overloads forward to the standard library;
// they exist so that `fem::sqrt(x)` compiles for every scalar a law is instantiated with.
template <class S, std::enable_if_t<std::is_floating_point_v<S>, int> = 0>
FEM_INLINE S sqrt(S x) {
  return std::sqrt(x);
}
template <class T>
FEM_INLINE Dual<T> sqrt(const Dual<T>& x) {
  const T r = std::sqrt(x.v);
  return chain(x, r, T(0.5) / r);
}
template <class S, std::enable_if_t<std::is_floating_point_v<S>, int> = 0>
FEM_INLINE S exp(S x) {
  return std::exp(x);
}
template <class T>
FEM_INLINE Dual<T> exp(const Dual<T>& x) {
  const T e = std::exp(x.v);
  return chain(x, e, e);
}
template <class S, std::enable_if_t<std::is_floating_point_v<S>, int> = 0>
FEM_INLINE S log(S x) {
  return std::log(x);
}
template <class T>
FEM_INLINE Dual<T> log(const Dual<T>& x) {
  return chain(x, std::log(x.v), T(1) / x.v);
}
template <class S, std::enable_if_t<std::is_floating_point_v<S>, int> = 0>
FEM_INLINE S abs(S x) {
  return x < S(0) ? -x : x;
}
template <class T>
FEM_INLINE Dual<T> abs(const Dual<T>& x) {
  return x.v < T(0) ? -x : x;
}

}  // namespace fem
