package io.tierroute.fitter.regression;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.EventWindow;
import io.tierroute.fitter.QualityKind;
import io.tierroute.fitter.linalg.Cholesky;
import io.tierroute.fitter.linalg.Nnls;
import io.tierroute.fitter.linalg.SymmetricEigen;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Online robust non-negative least squares with forgetting for the cost model's alphas, with Q_slack
 * profiled over 0..maxQSlack. Math in the module README (§1); in short:
 * <ul>
 *   <li>exponentially weighted normal equations per candidate Q_slack ({@link CandidateSums}: the
 *       entries the candidates share kept once, the x_ho row per candidate);</li>
 *   <li>each row is weighted h/v²: v is the noise scale (the current prediction under the proportional
 *       model), u = (y − ŷ)/(v·s) the standardised residual against the current reference fit, s a
 *       running MAD, h = min(1, c/|u|) the Huber weight, and h = 0 beyond the gross-outlier cut
 *       {@code rejectK} (a "skipped" Huber: one-sided gross outliers would otherwise bias the fit by
 *       c·s each);</li>
 *   <li>the first {@code burnIn} rows are buffered and fitted by IRLS before they enter the sums
 *       (robust start);</li>
 *   <li>every {@code refitInterval} rows each candidate is solved by NNLS (Lawson-Hanson on the
 *       equilibrated normal equations) and the candidate with the smallest weighted residual sum
 *       becomes the reference (all candidates share the row weights, so their sums are comparable);</li>
 *   <li>a quadratic term the other regressors reproduce (variance inflation above {@link #MAX_VARIANCE_INFLATION})
 *       is left out of a refit, its linear partner carrying it;</li>
 *   <li>standard errors from the Huber sandwich s²·B⁻¹MB⁻¹ with the forgetting applied (λ in B, λ² in M).</li>
 * </ul>
 * Not thread-safe. No I/O.
 */
public final class LatencyRegression {
    private static final double V_FLOOR_RELATIVE = 0.01;
    private static final double ABSOLUTE_FLOOR = 1e-6;
    private static final int INIT_ITERATIONS = 6;
    private static final int HO = Coefficient.ALPHA_HO.ordinal();
    /**
     * A quadratic term whose column the other regressors reproduce this closely (variance inflation factor above it,
     * i.e. R² of the column on the others above 1 − 10⁻⁶) is left out of the fit: with prompts of nearly one length
     * (ISL² − hit²)/2 is nearly a multiple of p_eff and the data fix only α_p·p_eff + α_p2·(ISL² − hit²)/2. Left out,
     * it is 0 with an infinite standard error, as a regressor never observed, and its linear partner carries the term
     * (DESIGN.md §3's linear price). Where a fit ended with both standard errors at 10⁶ times their values, the gate
     * held both at DESIGN's defaults whatever the data said (llmd-blog 0.5, seed 5); there the rule acts in the early
     * refits, when few rows have entered the sums, and the fit's path no longer ends there
     * (fleet-sim/experiments/ROUNDS.md, "Frontier round").
     */
    static final double MAX_VARIANCE_INFLATION = 1e6;
    /** The quadratic terms, each priced by its linear partner when left out; the worst is left out first. */
    private static final int[] QUADRATIC = Arrays.stream(Coefficient.values())
        .filter(c -> c.linearPartner() != null).mapToInt(Coefficient::ordinal).toArray();
    /** Keeps the others' matrix positive definite where two of them reproduce each other (unit-diagonal scale). */
    private static final double INFLATION_RIDGE = 1e-10;

    private final RegressionConfig config;
    private final int p;
    /** Per candidate: its sums as last solved and its solution (the reference of new rows). */
    private final WeightedGram[] candidates;
    private CandidateSums sums;
    private final double[] hol;
    private final RobustScale robustScale;
    private final EventWindow window = new EventWindow();
    private final double[] x;
    private final long[] rejected = new long[UpdateOutcome.values().length];

    private List<LatencyObservation> burnInRows = new ArrayList<>();
    private int best;
    private double scale = Double.POSITIVE_INFINITY;
    private long accepted;
    private long grossOutliers;
    // exponentially weighted sums shared by every candidate (the row weights are shared)
    private double sumWyy;
    private double sumWy;
    private double sumW;
    private double downweightedNum;
    private double downweightedDen;
    // forgetting bookkeeping, independent of the weights
    private double sumLambda;
    private double sumLambda2;
    private double ewMeanYNum;
    /** Σ λ^age over the rows in {@link #ewMeanYNum}: {@link #sumLambda} once the burn-in rows are in it. */
    private double meanWeight;
    private final double[] lastSsr;

    public LatencyRegression(RegressionConfig config) {
        this.config = config;
        this.p = config.dimension();
        this.candidates = new WeightedGram[config.maxQSlack() + 1];
        for (int k = 0; k < candidates.length; k++) {
            candidates[k] = new WeightedGram(p);
        }
        this.sums = new CandidateSums(p, HO, candidates.length);
        this.hol = new double[candidates.length];
        this.robustScale = new RobustScale(config.madWindow());
        this.x = new double[p];
        this.best = Math.min(4, config.maxQSlack()); // the design default Q_slack until the first refit
        this.lastSsr = new double[candidates.length];
    }

    public RegressionConfig config() {
        return config;
    }

    /** Accepted rows so far. */
    public long samples() {
        return accepted;
    }

    /** Rows rejected for the given reason so far. */
    public long rejected(UpdateOutcome reason) {
        return rejected[reason.ordinal()];
    }

    /** Accepted rows that got weight 0 as gross outliers (|u| > rejectK). */
    public long grossOutliers() {
        return grossOutliers;
    }

    /** Offers one row; returns why it was rejected, or ACCEPTED. */
    public UpdateOutcome update(LatencyObservation row) {
        UpdateOutcome check = row.check();
        if (check != UpdateOutcome.ACCEPTED) {
            rejected[check.ordinal()]++;
            return check;
        }
        double lambda = config.forgetting();
        accepted++;
        window.observe(row.eventTimeMs());
        sumLambda = lambda * sumLambda + 1;
        sumLambda2 = lambda * lambda * sumLambda2 + 1;
        if (burnInRows != null) {
            burnInRows.add(row); // their mean is taken at initialise, against their median
            if (burnInRows.size() >= config.burnIn()) {
                initialise();
            }
            return UpdateOutcome.ACCEPTED;
        }
        addToMean(row.realisedUs(), lambda, Double.NaN); // past the burn-in, there is always a mean before it
        row.features(best, config.intercept(), x);
        double yHat = candidates[best].predict(x);
        double v = noiseScale(yHat);
        double e = (row.realisedUs() - yHat) / v;
        robustScale.add(Math.abs(e));
        accumulate(row, v, e / scale);
        if (accepted % config.refitInterval() == 0) {
            refit();
        }
        return UpdateOutcome.ACCEPTED;
    }

    /**
     * Robust start: fits the buffered burn-in rows by iteratively reweighted least squares (every
     * candidate solved, the best picked, MAD scale and Huber weights from its residuals; repeated), then
     * replays them in arrival order into the sums with their final weights. Without this the first rows
     * would enter with unit weight and an early gross outlier would stay in the sums.
     */
    private void initialise() {
        List<LatencyObservation> rows = burnInRows;
        burnInRows = null;
        double medianY = rows.stream().mapToDouble(LatencyObservation::realisedUs).sorted().skip(rows.size() / 2)
            .findFirst().orElse(1.0);
        for (LatencyObservation r : rows) {
            addToMean(r.realisedUs(), config.forgetting(), medianY);
        }
        int n = rows.size();
        double meanY = 0;
        for (LatencyObservation r : rows) {
            meanY += r.realisedUs() / n;
        }
        double[] v = new double[n];
        double[] u = new double[n];
        double[] e = new double[n];
        Arrays.fill(v, noiseScale(meanY));
        for (int iteration = 0; iteration < INIT_ITERATIONS; iteration++) {
            clearSums();
            for (int i = 0; i < n; i++) {
                accumulate(rows.get(i), v[i], u[i]);
            }
            refit();
            double[] abs = new double[n];
            for (int i = 0; i < n; i++) {
                LatencyObservation r = rows.get(i);
                r.features(best, config.intercept(), x);
                double yHat = candidates[best].predict(x);
                v[i] = noiseScale(yHat);
                e[i] = (r.realisedUs() - yHat) / v[i];
                abs[i] = Math.abs(e[i]);
            }
            Arrays.sort(abs);
            double median = n % 2 == 1 ? abs[n / 2] : 0.5 * (abs[n / 2 - 1] + abs[n / 2]);
            scale = Math.max(1.4826 * median, scaleFloor());
            for (int i = 0; i < n; i++) {
                u[i] = e[i] / scale;
            }
        }
        clearSums();
        grossOutliers = 0;
        for (int i = 0; i < n; i++) {
            robustScale.add(Math.abs(e[i]));
            accumulate(rows.get(i), v[i], u[i]);
        }
        refit();
    }

    private void clearSums() {
        sums = new CandidateSums(p, HO, candidates.length);
        sumWyy = 0;
        sumWy = 0;
        sumW = 0;
        downweightedNum = 0;
        downweightedDen = 0;
    }

    /** Adds one row with noise scale v and standardised residual u (0 before any scale is known). */
    private void accumulate(LatencyObservation row, double v, double u) {
        double lambda = config.forgetting();
        double y = row.realisedUs();
        double c = config.huberK();
        double h;
        double psi;
        double psiPrime;
        if (Double.isNaN(u)) {
            u = 0;
        }
        if (Math.abs(u) > config.rejectK()) {
            h = 0;
            psi = 0;
            psiPrime = 0;
            grossOutliers++;
        } else {
            h = Huber.weight(u, c);
            psi = Huber.psi(u, c);
            psiPrime = Huber.psiPrime(u, c);
        }
        double inv = 1 / (v * v);
        double w = h * inv;
        sumWyy = lambda * sumWyy + w * y * y;
        sumWy = lambda * sumWy + w * y;
        sumW = lambda * sumW + w;
        downweightedNum = lambda * downweightedNum + (h < 1 ? 1 : 0);
        downweightedDen = lambda * downweightedDen + 1;
        row.features(0, config.intercept(), x);
        for (int k = 0; k < hol.length; k++) {
            hol[k] = LatencyObservation.holFeature(row.queueLength(), k);
        }
        sums.decay(lambda);
        sums.add(x, hol, y, w, psiPrime * inv, psi * psi * inv);
    }

    /**
     * The running mean of the realised times, winsorised at 10× the mean so far: the mean only sets the noise-scale
     * floor, and one extreme row must not raise that floor for every row after it. The first row has no mean before
     * it, so it is capped against {@code firstReference}: the burn-in rows' median (a first row of 10^10 µs against
     * itself kept every later row below its cap, and the floor up, for thousands of rows).
     */
    private void addToMean(double y, double lambda, double firstReference) {
        double meanSoFar = meanWeight > 0 ? ewMeanYNum / meanWeight : firstReference;
        meanWeight = lambda * meanWeight + 1;
        ewMeanYNum = lambda * ewMeanYNum + Math.min(y, 10 * Math.max(meanSoFar, 1.0));
    }

    private double ewMeanY() {
        return meanWeight > 0 ? ewMeanYNum / meanWeight : 0;
    }

    private double noiseScale(double yHat) {
        if (config.varianceModel() == VarianceModel.CONSTANT) {
            return 1.0;
        }
        return Math.max(ABSOLUTE_FLOOR, Math.max(yHat, V_FLOOR_RELATIVE * ewMeanY()));
    }

    private double scaleFloor() {
        if (config.varianceModel() == VarianceModel.CONSTANT) {
            return ABSOLUTE_FLOOR * Math.max(1, Math.abs(ewMeanY()));
        }
        return ABSOLUTE_FLOOR;
    }

    /**
     * Re-estimates the robust scale, solves every candidate and re-selects Q_slack; returns the quadratic columns the
     * solves left out ({@link #unidentifiedQuadratics}), decided once on the reference candidate: the candidates differ
     * only in x_ho, and one test per candidate cost a fifth of the update throughput.
     */
    private boolean[] refit() {
        if (burnInRows == null && robustScale.size() >= 8) {
            scale = Math.max(robustScale.scale(), scaleFloor());
        }
        double bestSsr = Double.POSITIVE_INFINITY;
        int bestK = best;
        for (int k = 0; k < candidates.length; k++) {
            sums.fill(k, candidates[k]);
        }
        boolean[] leftOut = unidentifiedQuadratics(candidates[best]);
        for (int k = 0; k < candidates.length; k++) {
            double ssr = solve(candidates[k], leftOut);
            lastSsr[k] = ssr;
            if (ssr < bestSsr) {
                bestSsr = ssr;
                bestK = k;
            }
        }
        // keep the current choice unless another candidate is better beyond rounding
        if (!(lastSsr[best] <= bestSsr * (1 + 1e-12))) {
            best = bestK;
        }
        return leftOut;
    }

    /**
     * The column scales 1/√a_jj of the equilibrated normal equations; 0 for a regressor the fit leaves out: one never
     * observed, or a quadratic term in {@code leftOut} ({@link #unidentifiedQuadratics}).
     */
    private double[] equilibration(WeightedGram g, boolean[] leftOut) {
        double[] d = columnScales(g);
        for (int j = 0; j < p; j++) {
            if (leftOut[j]) {
                d[j] = 0;
            }
        }
        return d;
    }

    private double[] columnScales(WeightedGram g) {
        double[] d = new double[p];
        for (int j = 0; j < p; j++) {
            double ajj = g.a[j][j];
            d[j] = ajj > 1e-300 && Double.isFinite(ajj) ? 1 / Math.sqrt(ajj) : 0;
        }
        return d;
    }

    /**
     * The quadratic columns the others reproduce beyond {@link #MAX_VARIANCE_INFLATION}, the worst left out first.
     * Judged on the reference candidate before this refit's solves, for every candidate: they differ only in x_ho.
     */
    private boolean[] unidentifiedQuadratics(WeightedGram g) {
        boolean[] out = new boolean[p];
        double[] d = columnScales(g);
        for (int round = 0; round < QUADRATIC.length; round++) {
            int worst = -1;
            double worstInflation = MAX_VARIANCE_INFLATION;
            for (int j : QUADRATIC) {
                double inflation = d[j] == 0 ? 0 : varianceInflation(g, d, j);
                if (inflation > worstInflation) {
                    worst = j;
                    worstInflation = inflation;
                }
            }
            if (worst < 0) {
                break;
            }
            out[worst] = true;
            d[worst] = 0; // leaving one out can make the other identifiable: measure again without it
        }
        return out;
    }

    /**
     * Column j's variance inflation factor on the equilibrated matrix C (unit diagonal; columns with scale 0 left out):
     * 1 / (1 − R²) of column j regressed on the others, R² = c_jᵀ C₋ⱼ⁻¹ c_j. Solved on the others alone, with a tiny
     * ridge, so that two other columns reproducing each other do not make column j look unidentified.
     */
    private double varianceInflation(WeightedGram g, double[] d, int j) {
        int n = p - 1;
        double[][] others = new double[n][n];
        double[] withJ = new double[n];
        for (int a = 0, ia = 0; a < p; a++) {
            if (a == j) {
                continue;
            }
            withJ[ia] = d[a] * (a <= j ? g.a[a][j] : g.a[j][a]) * d[j];
            for (int b = 0, ib = 0; b < p; b++) {
                if (b == j) {
                    continue;
                }
                others[ia][ib++] = d[a] * (a <= b ? g.a[a][b] : g.a[b][a]) * d[b];
            }
            if (d[a] == 0) {
                others[ia][ia] = 1;
            }
            ia++;
        }
        double[] coef = Cholesky.solve(others, withJ, INFLATION_RIDGE);
        if (coef == null) {
            return Double.POSITIVE_INFINITY;
        }
        double explained = 0;
        for (int a = 0; a < n; a++) {
            explained += withJ[a] * coef[a];
        }
        double unexplained = 1 - explained;
        return unexplained > 0 ? 1 / unexplained : Double.POSITIVE_INFINITY;
    }

    /** NNLS on the equilibrated normal equations; stores the raw-unit solution; returns the weighted SSR. */
    private double solve(WeightedGram g, boolean[] leftOut) {
        double[] d = equilibration(g, leftOut);
        double[][] as = new double[p][p];
        double[] bs = new double[p];
        boolean[] constrained = new boolean[p];
        for (int i = 0; i < p; i++) {
            constrained[i] = i < Coefficient.COUNT;
            bs[i] = d[i] * g.b[i];
            for (int j = 0; j < p; j++) {
                double aij = i <= j ? g.a[i][j] : g.a[j][i];
                as[i][j] = d[i] * aij * d[j];
            }
            if (d[i] == 0) {
                as[i][i] = 1; // unobserved regressor: isolated unit row with zero rhs, solution 0
                bs[i] = 0;
            }
        }
        double[] z = Nnls.solve(as, bs, constrained, config.ridge());
        double quad = 0;
        double lin = 0;
        for (int i = 0; i < p; i++) {
            g.coef[i] = d[i] * z[i];
            lin += z[i] * bs[i];
            for (int j = 0; j < p; j++) {
                quad += z[i] * as[i][j] * z[j];
            }
        }
        double ssr = sumWyy - 2 * lin + quad;
        return Double.isFinite(ssr) ? Math.max(0, ssr) : Double.POSITIVE_INFINITY;
    }

    /**
     * Solves the current sums and returns the fit; O(maxQSlack · p³). Before {@code burnIn} rows the
     * buffered rows are fitted without entering the stream state.
     *
     * <p>Reading a fit changes nothing: it solves copies of the sums, and the reference fit, Q_slack and
     * scale that later rows are weighted against still change only every {@code refitInterval} rows. So the
     * estimator's state is a function of the rows alone, however often it is read (the streaming job's
     * restore rebuilds it by replaying rows, without the reads of the first time).
     */
    public LatencyFit fit() {
        if (burnInRows != null) {
            return fitDuringBurnIn();
        }
        WeightedGram[] live = candidates.clone();
        double liveScale = scale;
        int liveBest = best;
        double[] liveSsr = lastSsr.clone();
        for (int k = 0; k < candidates.length; k++) {
            candidates[k] = live[k].copyCoefficients();
        }
        try {
            return solveCopies();
        } finally {
            System.arraycopy(live, 0, candidates, 0, live.length);
            scale = liveScale;
            best = liveBest;
            System.arraycopy(liveSsr, 0, lastSsr, 0, liveSsr.length);
        }
    }

    private LatencyFit solveCopies() {
        boolean[] leftOut = refit();
        WeightedGram g = candidates[best];
        double[] se = standardErrors(g, leftOut);
        double sst = sumWyy - (sumW > 0 ? sumWy * sumWy / sumW : 0);
        double ssr = lastSsr[best];
        double r2 = sst > 0 && Double.isFinite(ssr) ? 1 - ssr / sst : 0;
        r2 = Math.max(0, Math.min(1, Double.isFinite(r2) ? r2 : 0));
        long start = window.startMs();
        long end = window.endExclusiveMs();
        Map<Coefficient, Estimate> coefficients = new EnumMap<>(Coefficient.class);
        for (Coefficient c : Coefficient.values()) {
            int j = c.ordinal();
            coefficients.put(c, new Estimate(finiteOrZero(g.coef[j]), OptionalDouble.of(se[j]), accepted, r2,
                QualityKind.R2, start, end));
        }
        Estimate qSlack = new Estimate(best, OptionalDouble.empty(), accepted, r2, QualityKind.R2, start, end);
        double intercept = config.intercept() ? finiteOrZero(g.coef[Coefficient.COUNT]) : 0;
        double interceptSe = config.intercept() ? se[Coefficient.COUNT] : 0;
        double nEff = sumLambda2 > 0 ? sumLambda * sumLambda / sumLambda2 : 0;
        double down = downweightedDen > 0 ? downweightedNum / downweightedDen : 0;
        double s = Double.isFinite(scale) ? scale : 0;
        return new LatencyFit(coefficients, qSlack, intercept, interceptSe, r2, accepted, nEff, s, down,
            lastSsr.clone());
    }

    private LatencyFit fitDuringBurnIn() {
        // A throw-away estimator on the buffered rows with burnIn = their count (at least 1).
        List<LatencyObservation> rows = burnInRows;
        if (rows.isEmpty()) {
            Map<Coefficient, Estimate> none = new EnumMap<>(Coefficient.class);
            for (Coefficient c : Coefficient.values()) {
                none.put(c, new Estimate(0, OptionalDouble.of(Double.POSITIVE_INFINITY), 0, 0, QualityKind.R2, 0, 0));
            }
            return new LatencyFit(none, new Estimate(best, OptionalDouble.empty(), 0, 0, QualityKind.R2, 0, 0),
                0, config.intercept() ? Double.POSITIVE_INFINITY : 0, 0, 0, 0, 0, 0, new double[candidates.length]);
        }
        RegressionConfig c = config;
        LatencyRegression tmp = new LatencyRegression(new RegressionConfig(c.forgetting(), c.huberK(), c.rejectK(),
            c.intercept(), c.maxQSlack(), c.refitInterval(), c.madWindow(), rows.size(), c.varianceModel(),
            c.ridge(), c.eigenFloor()));
        for (LatencyObservation r : rows) {
            tmp.update(r);
        }
        return tmp.fit();
    }

    private static double finiteOrZero(double v) {
        return Double.isFinite(v) ? v : 0;
    }

    /**
     * Huber sandwich standard errors s·sqrt(diag(B⁻¹ M B⁻¹)), computed on the equilibrated matrices with
     * the eigenvalue floor; +Infinity for a regressor the fit leaves out ({@link #equilibration}) or with fewer rows
     * than coefficients.
     */
    private double[] standardErrors(WeightedGram g, boolean[] leftOut) {
        double[] se = new double[p];
        if (accepted <= p || !Double.isFinite(scale)) {
            Arrays.fill(se, Double.POSITIVE_INFINITY);
            return se;
        }
        double[] d = equilibration(g, leftOut);
        double[][] bread = WeightedGram.symmetric(g.bread);
        double[][] meat = WeightedGram.symmetric(g.meat);
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                bread[i][j] *= d[i] * d[j];
                meat[i][j] *= d[i] * d[j];
            }
            if (d[i] == 0) {
                bread[i][i] = 1;
            }
        }
        double[][] inv = SymmetricEigen.of(bread).regularisedInverse(config.eigenFloor());
        for (int j = 0; j < p; j++) {
            if (d[j] == 0) {
                se[j] = Double.POSITIVE_INFINITY;
                continue;
            }
            // (B⁻¹ M B⁻¹)_jj = r M r with r = row j of B⁻¹
            double[] r = inv[j];
            double v = 0;
            for (int a = 0; a < p; a++) {
                double ma = 0;
                for (int b = 0; b < p; b++) {
                    ma += meat[a][b] * r[b];
                }
                v += r[a] * ma;
            }
            double sej = scale * Math.sqrt(Math.max(0, v)) * d[j];
            se[j] = Double.isNaN(sej) ? Double.POSITIVE_INFINITY : sej;
        }
        return se;
    }
}
