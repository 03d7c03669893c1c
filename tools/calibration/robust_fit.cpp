#include "tools/calibration/robust_fit.hpp"

#include <algorithm>
#include <cmath>

namespace calib {
namespace {

// Solves the small symmetric system A x = b (Gaussian elimination with partial pivoting).
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    }
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    if (std::fabs(a[c][c]) < 1e-300) continue;
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0);
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k) s -= a[c][k] * x[k];
    x[c] = std::fabs(a[c][c]) < 1e-300 ? 0 : s / a[c][c];
  }
  return x;
}

std::vector<double> values_of(const std::vector<FitParameter>& p) {
  std::vector<double> v;
  for (const auto& x : p) v.push_back(x.value);
  return v;
}

}  // namespace

double huber_loss(const std::vector<double>& r, double delta) {
  double s = 0;
  for (double x : r) {
    const double a = std::fabs(x);
    s += a <= delta ? 0.5 * a * a : delta * (a - 0.5 * delta);
  }
  return s;
}

FitOutcome robust_fit(std::vector<FitParameter> params, const ResidualFn& residuals,
                      double huber_delta, int max_iterations) {
  FitOutcome out;
  std::vector<size_t> free;
  for (size_t i = 0; i < params.size(); ++i) {
    params[i].value = std::clamp(params[i].value, params[i].lo, params[i].hi);
    if (params[i].free) free.push_back(i);
  }
  std::vector<double> r = residuals(values_of(params));
  ++out.evaluations;
  double loss = huber_loss(r, huber_delta);
  for (int it = 0; it < max_iterations && !free.empty(); ++it) {
    ++out.iterations;
    // Jacobian in scaled coordinates (one unit = the parameter's step).
    std::vector<std::vector<double>> jac(free.size());
    for (size_t k = 0; k < free.size(); ++k) {
      FitParameter& p = params[free[k]];
      const double base = p.value;
      // Step inward when at the upper bound.
      const double h = base + p.step <= p.hi ? p.step : -p.step;
      p.value = base + h;
      const std::vector<double> rp = residuals(values_of(params));
      ++out.evaluations;
      p.value = base;
      jac[k].resize(r.size());
      for (size_t i = 0; i < r.size(); ++i) jac[k][i] = (rp[i] - r[i]) * (p.step / h);
    }
    // IRLS weights of Huber's loss.
    std::vector<double> w(r.size());
    for (size_t i = 0; i < r.size(); ++i) {
      const double a = std::fabs(r[i]);
      w[i] = a <= huber_delta ? 1.0 : huber_delta / a;
    }
    const size_t n = free.size();
    std::vector<std::vector<double>> a(n, std::vector<double>(n, 0));
    std::vector<double> b(n, 0);
    for (size_t k = 0; k < n; ++k) {
      for (size_t l = 0; l < n; ++l) {
        for (size_t i = 0; i < r.size(); ++i) a[k][l] += w[i] * jac[k][i] * jac[l][i];
      }
      for (size_t i = 0; i < r.size(); ++i) b[k] -= w[i] * jac[k][i] * r[i];
      a[k][k] *= 1.0 + 1e-9;  // keeps a parameter the data do not determine from diverging
      a[k][k] += 1e-12;
    }
    const std::vector<double> dx = solve(a, b);
    // Projected step, halved until the loss falls.
    bool improved = false;
    const double loss_before = loss;
    double scale = 1.0;
    for (int tries = 0; tries < 4 && !improved; ++tries, scale /= 2) {
      std::vector<FitParameter> trial = params;
      for (size_t k = 0; k < n; ++k) {
        FitParameter& p = trial[free[k]];
        p.value = std::clamp(p.value + scale * dx[k] * p.step, p.lo, p.hi);
      }
      const std::vector<double> rt = residuals(values_of(trial));
      ++out.evaluations;
      const double lt = huber_loss(rt, huber_delta);
      if (lt < loss) {
        params = std::move(trial);
        r = rt;
        loss = lt;
        improved = true;
      }
    }
    // Converged: the step moved no parameter by more than 1 % of its scale, or the loss fell
    // by less than 0.1 % (the rest is below what the measurements resolve).
    double largest = 0;
    for (size_t k = 0; k < n; ++k) largest = std::max(largest, std::fabs(dx[k]) * scale * 2);
    if (!improved || largest < 0.01 || loss_before - loss < 1e-3 * loss_before) break;
  }
  out.params = params;
  out.residuals = r;
  out.loss = loss;
  return out;
}

}  // namespace calib
