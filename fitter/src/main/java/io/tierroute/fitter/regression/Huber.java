package io.tierroute.fitter.regression;

/** Huber's ψ function and the quantities derived from it, for a standardised residual u. */
final class Huber {
    private Huber() {
    }

    /** ψ(u) = clamp(u, −c, c). */
    static double psi(double u, double c) {
        return Math.max(-c, Math.min(c, u));
    }

    /** ψ'(u) = 1 if |u| <= c else 0. */
    static double psiPrime(double u, double c) {
        return Math.abs(u) <= c ? 1.0 : 0.0;
    }

    /** IRLS weight ψ(u)/u = min(1, c/|u|). */
    static double weight(double u, double c) {
        double a = Math.abs(u);
        return a <= c ? 1.0 : c / a;
    }
}
