/* Vector kernels: two-stage dot product, axpy, xpay, Jacobi, pack, and the fused CG
 * update x += alpha p, r -= alpha q with the partial sums of r'z and r'r. */

/* part[g] = sum over this group's share of x[i]*y[i] (grid-stride) */
kernel void dot_part(uint n, global const real *x, global const real *y, global dsum *part,
                     local dsum *buf)
{
    dsum s = DSUM0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        s = dd_acc(s, x[i] * y[i]);
    s = group_sum(s, buf);
    if (get_local_id(0) == 0)
        part[get_group_id(0)] = s;
}

/* out[slot + g] = sum of a_g[0..n_g) as a (hi, lo) pair, by work-group g (at most three groups:
 * a reduction point's partial sums in one launch) */
kernel void reduce_sum(global const dsum *a0, uint n0, global const dsum *a1, uint n1, global const dsum *a2,
                        uint n2, global dsum *out, uint slot, local dsum *buf)
{
    const uint g = get_group_id(0);
    if (g > 2)
        return;
    dsum s = sum_parts_dd(g == 0 ? a0 : g == 1 ? a1 : a2, g == 0 ? n0 : g == 1 ? n1 : n2, buf);
    if (get_local_id(0) == 0)
        out[slot + g] = s;
}

/* y = a*x + y for entries lo..n-1 */
kernel void axpy(uint lo, uint n, real a, global const real *x, global real *y)
{
    for (uint i = lo + get_global_id(0); i < n; i += get_global_size(0))
        y[i] += a * x[i];
}

/* y = x + a*y */
kernel void xpay(uint n, global const real *x, real a, global real *y)
{
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        y[i] = x[i] + a * y[i];
}

/* z = D^-1 r */
kernel void jacobi(uint n, global const real *dinv, global const real *r, global real *z)
{
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        z[i] = dinv[i] * r[i];
}

/* buf[k] = x[idx[k]]: the boundary entries others need */
kernel void pack(uint n, global const uint *idx, global const real *x, global real *buf)
{
    for (uint k = get_global_id(0); k < n; k += get_global_size(0))
        buf[k] = x[idx[k]];
}

/* r_i = src_i - alpha q_i (src may be r itself), adding the new r'z and r'r terms of entry
 * i (z = M^-1 r; wrr as in residual_init) */
inline void r_step(uint i, global const real *src, real alpha, global real *r, global const real *q,
                   global const real *dinv, global const real *wrr, dsum *srz, dsum *srr)
{
    const real ri = src[i] - alpha * q[i];
    r[i] = ri;
    *srr = dd_acc(*srr, wrr ? wrr[i] * ri * ri : ri * ri);
    if (dinv || wrr)
        *srz = dd_acc(*srz, ri * zval(r, dinv, i));
}

/* A work-group's partial sums of r'z and r'r to part_rz[g], part_rr[g] (written when
 * write); every work-item calls it (reduction trees). */
inline void rz_rr_parts(dsum srz, dsum srr, global const real *dinv, global const real *wrr, int write,
                        global dsum *part_rz, global dsum *part_rr, local dsum *buf)
{
    srr = group_sum(srr, buf);
    srz = !dinv && !wrr ? srr : group_sum(srz, buf);   /* z = r: r'z is r'r */
    if (write && get_local_id(0) == 0) {
        part_rz[get_group_id(0)] = srz;
        part_rr[get_group_id(0)] = srr;
    }
}

/* r = b - q; partial sums of r'z (z = M^-1 r) and r'r into part_rz[g], part_rr[g].
 * wrr (or NULL) weighs r'r: a system scaled as D^-1/2 A D^-1/2 measures the residual of
 * the original one as sum d_i r_i^2. */
kernel void residual_init(uint n, global const real *b, global const real *q, global real *r,
                          global const real *dinv, global dsum *part_rz, global dsum *part_rr,
                          local dsum *buf, global const real *wrr)
{
    dsum rz = DSUM0, rr = DSUM0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        r_step(i, b, 1, r, q, dinv, wrr, &rz, &rr);   /* b - 1 q: exactly b - q */
    rz_rr_parts(rz, rr, dinv, wrr, 1, part_rz, part_rr, buf);
}

/* Entry i of p = z + beta pprev, z = M^-1 r (beta from the host, which has just reduced r'z). */
inline real pnew(global const real *r, global const real *dinv, global const real *pprev, real beta, uint i)
{
    return zval(r, dinv, i) + beta * pprev[i];
}

/* p = z + beta pprev for all n rows and, in the same launch, the ghost pack buf[k] = p[idx[k]]
 * for k < npack, formed from the same operands (so the same bits) rather than read back. */
kernel void update_p_pack(uint n, global const real *r, global const real *dinv, global const real *pprev,
                          global real *p, real beta, uint npack, global const uint *idx, global real *buf)
{
    for (uint k = get_global_id(0); k < npack; k += get_global_size(0))
        buf[k] = pnew(r, dinv, pprev, beta, idx[k]);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
#ifdef CLCG_DELAY_ROW
        /* tests (CLCG_CL_OPTIONS=-DCLCG_DELAY_ROW=i): row i of p comes late, so that a launch
           on another queue that does not wait for this one reads the old value */
        if (i == CLCG_DELAY_ROW) {
            volatile real d = 0;
            for (int w = 0; w < 2000000; w++)
                d += 1;
        }
#endif
        p[i] = pnew(r, dinv, pprev, beta, i);
    }
}

/* alpha = rz / pq; x += alpha p; r -= alpha q; partial sums of the new r'z and r'r.
 * A non-positive or non-finite p'q stops the solver (recorded in scal); wrr as in
 * residual_init.  Every work-item
 * reaches every barrier: a stopped solver skips the work, not the reductions. */
kernel void update_xr(uint n, global real *x, global real *r, global const real *p,
                      global const real *q, global const real *dinv,
                      global const dsum *pq_part, uint n_pq, global const dsum *rz_part, uint n_rz,
                      global dsum *part_rz, global dsum *part_rr, global real *scal, uint its,
                      local dsum *buf, global const real *wrr)
{
    const int live = scal[S_STOP] == 0;
    const real pq = sum_parts(pq_part, n_pq, buf);
    const real rz = sum_parts(rz_part, n_rz, buf);
    const int go = live && pq > 0 && isfinite(pq) && isfinite(rz);
    if (live && !go && get_global_id(0) == 0) {
        scal[S_STOP] = isfinite(pq) && isfinite(rz) ? STOP_INDEFINITE : STOP_NANORINF;
        scal[S_ITS] = its;
        scal[S_PQ] = pq;
    }
    const real alpha = go ? rz / pq : 0;
    dsum srz = DSUM0, srr = DSUM0;
    for (uint i = get_global_id(0); go && i < n; i += get_global_size(0)) {
        x[i] += alpha * p[i];
        r_step(i, r, alpha, r, q, dinv, wrr, &srz, &srr);
    }
    rz_rr_parts(srz, srr, dinv, wrr, go, part_rz, part_rr, buf);
    if (go && get_global_id(0) == 0) {
        scal[S_ALPHA] = alpha;
        scal[S_PQ] = pq;
    }
}

/* The host path's r update: alpha from the host (which has reduced p'q and checked it),
 * r -= alpha q and the partial sums of the new r'z and r'r; x is left to axpy, which runs
 * while the host reduces these.  With a ticket, the last work-group adds the partial sums
 * up into fin as well. */
kernel void update_r(uint n, real alpha, global real *r, global const real *q, global const real *dinv,
                     global dsum *part_rz, global dsum *part_rr, local dsum *buf, global const real *wrr,
                     global dsum *fin, volatile global uint *ticket)
{
    dsum srz = DSUM0, srr = DSUM0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        r_step(i, r, alpha, r, q, dinv, wrr, &srz, &srr);
    rz_rr_parts(srz, srr, dinv, wrr, 1, part_rz, part_rr, buf);
    if (last_group(ticket, buf, get_num_groups(0))) {   /* fin[0], fin[1]: the sums of r'z and r'r */
        const dsum rr = sum_fresh_dd(part_rr, get_num_groups(0), buf);
        const dsum rz = !dinv && !wrr ? rr : sum_fresh_dd(part_rz, get_num_groups(0), buf);   /* the same parts */
        if (get_local_id(0) == 0) {
            fin[0] = rz;
            fin[1] = rr;
        }
    }
}

/* p = z + beta pprev, z = M^-1 r, for the listed rows only (the host path forms these
 * before the ghost exchange; the SpMV of the other rows forms its own on the fly) */
kernel void update_p_list(uint n, global const uint *rows, global const real *r, global const real *dinv,
                          global const real *pprev, global real *p, real beta)
{
    for (uint t = get_global_id(0); t < n; t += get_global_size(0)) {
        const uint i = rows[t];
        p[i] = zval(r, dinv, i) + beta * pprev[i];
    }
}

/* Convergence and breakdown check on the partial sums of iteration `its`: stop when
 * r'r <= tol^2, or r'z is not positive / not finite, or past scal[S_GROW2].  One work-group. */
kernel void check_stop(global const dsum *rr_part, uint n_rr, global const dsum *rz_part, uint n_rz,
                       global real *scal, uint its, local dsum *buf)
{
    const int live = scal[S_STOP] == 0;
    const real rr = sum_parts(rr_part, n_rr, buf);
    const real rz = sum_parts(rz_part, n_rz, buf);
    if (live && get_local_id(0) == 0) {
        scal[S_RR] = rr;
        scal[S_RZ] = rz;
        if (!isfinite(rr) || !isfinite(rz))
            scal[S_STOP] = STOP_NANORINF;
        else if (rr <= scal[S_TOL2])
            scal[S_STOP] = STOP_CONVERGED;
        else if (!(rz > 0))
            scal[S_STOP] = STOP_BREAKDOWN;
        else if (scal[S_GROW2] > 0 && rz > scal[S_GROW2])
            scal[S_STOP] = STOP_GREW;
        if (scal[S_STOP] != 0)
            scal[S_ITS] = its;
    }
}

/* Single-reduction CG (Chronopoulos-Gear): p = u + beta p; s = w + beta s; x += alpha p;
 * r -= alpha s; u = M^-1 r; partial sums of r'u and r'r.  (w = A u comes from the SpMV,
 * whose partial sums give w'u: all three reach the host at one reduction point.) */
kernel void update_sr(uint n, real alpha, real beta, global real *x, global real *r, global real *u,
                      global const real *w, global real *p, global real *s, global const real *dinv,
                      global dsum *part_ru, global dsum *part_rr, local dsum *buf)
{
    dsum sru = DSUM0, srr = DSUM0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        const real pi = u[i] + beta * p[i];
        const real si = w[i] + beta * s[i];
        p[i] = pi;
        s[i] = si;
        x[i] += alpha * pi;
        const real ri = r[i] - alpha * si;
        r[i] = ri;
        const real ui = dinv ? dinv[i] * ri : ri;
        u[i] = ui;
        sru = dd_acc(sru, ri * ui);
        srr = dd_acc(srr, ri * ri);
    }
    sru = group_sum(sru, buf);
    srr = group_sum(srr, buf);
    if (get_local_id(0) == 0) {
        part_ru[get_group_id(0)] = sru;
        part_rr[get_group_id(0)] = srr;
    }
}

/* Pipelined CG (Ghysels-Vanroose), all recurrences in one pass:
 * z = nv + beta z; q = m + beta q; s = w + beta s; p = u + beta p;
 * x += alpha p; r -= alpha s; u -= alpha q; w -= alpha z; m = M^-1 w;
 * partial sums of r'u, w'u and r'r for the next reduction, which then overlaps the
 * exchange of m and the SpMV nv = A m. */
kernel void update_pipe(uint n, real alpha, real beta, global real *x, global real *r, global real *u,
                        global real *w, global real *m, global const real *nv, global real *z,
                        global real *q, global real *s, global real *p, global const real *dinv,
                        global dsum *part_ru, global dsum *part_wu, global dsum *part_rr, local dsum *buf)
{
    dsum sru = DSUM0, swu = DSUM0, srr = DSUM0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        const real zi = nv[i] + beta * z[i];
        const real qi = m[i] + beta * q[i];
        const real si = w[i] + beta * s[i];
        const real pi = u[i] + beta * p[i];
        z[i] = zi;
        q[i] = qi;
        s[i] = si;
        p[i] = pi;
        x[i] += alpha * pi;
        const real ri = r[i] - alpha * si;
        const real ui = u[i] - alpha * qi;
        const real wi = w[i] - alpha * zi;
        r[i] = ri;
        u[i] = ui;
        w[i] = wi;
        m[i] = dinv ? dinv[i] * wi : wi;
        sru = dd_acc(sru, ri * ui);
        swu = dd_acc(swu, wi * ui);
        srr = dd_acc(srr, ri * ri);
    }
    sru = group_sum(sru, buf);
    swu = group_sum(swu, buf);
    srr = group_sum(srr, buf);
    if (get_local_id(0) == 0) {
        part_ru[get_group_id(0)] = sru;
        part_wu[get_group_id(0)] = swu;
        part_rr[get_group_id(0)] = srr;
    }
}
