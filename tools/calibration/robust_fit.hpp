// Bounded robust Gauss-Newton: minimises sum rho(r_i) over the relative errors r_i of a model
// against measurements, with rho Huber's loss, parameters kept inside bounds.
//
// Why this method: each evaluation of the model is a simulation of the traced experiments, so
// the number of evaluations is what costs. On an idle path the simulated curves are nearly
// affine in the fitted parameters (a latency adds, a rate scales), so Gauss-Newton with
// forward-difference Jacobians converges in two or three iterations (about 15 simulations),
// where derivative-free searches (Nelder-Mead, grids) take hundreds. Huber's loss (quadratic
// within `huber_delta`, linear beyond; solved by iteratively reweighted least squares) keeps a
// few sizes the model does not describe (a measurement anomaly, an inline-send step) from
// dragging the fit. Bounds are enforced by projection, with step halving when the projected
// step does not lower the loss.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace calib {

struct FitParameter {
  std::string name;
  double value = 0;  // start value in, fitted value out
  double lo = 0, hi = 0;
  double step = 0;  // finite-difference step and scale of the parameter
  bool free = true;
};

struct FitOutcome {
  std::vector<FitParameter> params;
  std::vector<double> residuals;  // relative errors at the fitted point
  double loss = 0;
  int iterations = 0;
  int evaluations = 0;
};

using ResidualFn = std::function<std::vector<double>(const std::vector<double>& values)>;

FitOutcome robust_fit(std::vector<FitParameter> params, const ResidualFn& residuals,
                      double huber_delta = 0.02, int max_iterations = 8);

double huber_loss(const std::vector<double>& r, double delta);

}  // namespace calib
