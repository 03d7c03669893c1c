// Floating-point functions the simulation may call, built only from IEEE 754's basic
// operations (+, -, *, / and scaling by powers of two), which every conforming machine rounds
// the same way. The C library's pow, log and exp are not required to be correctly rounded and
// differ in their last bits between libm versions and architectures; one bit of a DCQCN alpha
// or of a Poisson gap is enough to move a run's results. These are accurate to a few ulp and,
// above all, identical everywhere (with -ffp-contract=off, set by the build, so no compiler
// fuses a multiply and an add on one machine and not on another).
#pragma once

#include <cmath>
#include <cstdint>

namespace sim {

// base^n by binary exponentiation: at most 2 log2(n) exactly rounded multiplications.
constexpr double pow_int(double base, uint64_t n) {
  double result = 1.0;
  while (n > 0) {
    if (n & 1) result *= base;
    base *= base;
    n >>= 1;
  }
  return result;
}

// Natural logarithm of a finite x > 0. x = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m =
// 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716, whose odd series has converged below
// 2^-60 after the s^23 term; ln 2 is split in a part exact in e * ln2_hi and a correction.
inline double log_exact(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [1/2, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double series = 1.0 / 23.0;
  for (int k = 21; k >= 1; k -= 2) series = series * s2 + 1.0 / k;
  const double ln_m = 2.0 * s * series;
  constexpr double kLn2Hi = 0x1.62e42fee00000p-1;  // 32 significant bits: e * kLn2Hi is exact
  constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
  const double de = static_cast<double>(e);
  return de * kLn2Hi + (ln_m + de * kLn2Lo);
}

}  // namespace sim
