;; The skew search of orientation.ts: the detector's text pixels found and sampled, then their
;; projection profiles' sharpness in many directions. The same double-precision operations in the
;; same order as the definition (IEEE, as JavaScript's), so the same bits. Assembled by
;; `npm run wasm:build` into skew-wasm.ts, which is what the gateway loads.
;;
;; Memory: regions the caller places, each on 16 bytes.
(module
  (memory (export "memory") 1)

  ;; How many of the $length floats at $map lie above $threshold (as doubles: JavaScript compares
  ;; them so), four at a time, each pair counted in a lane of $counts.
  (func (export "countAbove") (param $map i32) (param $length i32) (param $threshold f64) (result i32)
    (local $i i32) (local $pixels v128) (local $limit v128) (local $counts v128) (local $count i32)
    (local.set $limit (f64x2.splat (local.get $threshold)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $length)))
        (local.set $pixels (v128.load (i32.add (local.get $map) (i32.shl (local.get $i) (i32.const 2)))))
        ;; A true lane is −1: subtracted, it counts one.
        (local.set $counts (i64x2.sub (i64x2.sub (local.get $counts)
          (f64x2.gt (f64x2.promote_low_f32x4 (local.get $pixels)) (local.get $limit)))
          (f64x2.gt (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $pixels) (local.get $pixels))) (local.get $limit))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $next)))
    (local.set $count (i32.wrap_i64 (i64.add (i64x2.extract_lane 0 (local.get $counts)) (i64x2.extract_lane 1 (local.get $counts)))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $length)))
        (local.set $count (i32.add (local.get $count)
          (f64.gt (f64.promote_f32 (f32.load (i32.add (local.get $map) (i32.shl (local.get $i) (i32.const 2))))) (local.get $threshold))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $count))

  ;; Of the pixels of the map at $map ($width × $height floats), those not at or below
  ;; $threshold (a NaN among them too), the first of every $every, at most $most of them: written at $points as points (y then x) about the
  ;; map's centre, scaled by $kx across and $ky down, each jittered within its pixel's square (see
  ;; $jitter). Returns how many were written. Four floats at a time, passed over while the next
  ;; to keep lies beyond them.
  (func (export "sample") (param $map i32) (param $width i32) (param $height i32) (param $threshold f64) (param $every i32) (param $most i32)
    (param $kx f64) (param $ky f64) (param $points i32) (result i32)
    (local $i i32) (local $k i32) (local $bits i32) (local $found i32) (local $pixels v128) (local $limit v128) (local $skip i32) (local $kept i32)
    (local $length i32) (local $at i32) (local $pixel i32) (local $row i32) (local $rowEnd i32) (local $seed i32) (local $halfWidth f64) (local $halfHeight f64)
    (local.set $limit (f64x2.splat (local.get $threshold)))
    (local.set $seed (i32.const 1))
    (local.set $halfWidth (f64.div (f64.convert_i32_u (local.get $width)) (f64.const 2)))
    (local.set $halfHeight (f64.div (f64.convert_i32_u (local.get $height)) (f64.const 2)))
    (local.set $length (i32.mul (local.get $width) (local.get $height)))
    (local.set $rowEnd (local.get $width))
    (block $done
      (loop $next
        (br_if $done (i32.or (i32.ge_u (local.get $i) (local.get $length)) (i32.ge_u (local.get $kept) (local.get $most))))
        (if (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $length))
          (then
            (local.set $pixels (v128.load (i32.add (local.get $map) (i32.shl (local.get $i) (i32.const 2)))))
            ;; Bit k set for float k not at or below the threshold.
            (local.set $bits (i32x4.bitmask (v128.not (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27
              (f64x2.le (f64x2.promote_low_f32x4 (local.get $pixels)) (local.get $limit))
              (f64x2.le (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $pixels) (local.get $pixels))) (local.get $limit)))))))
          (else
            ;; The last floats, fewer than four.
            (local.set $bits (i32.const 0))
            (local.set $k (i32.sub (local.get $length) (local.get $i)))
            (loop $last
              (local.set $k (i32.sub (local.get $k) (i32.const 1)))
              (local.set $bits (i32.or (i32.shl (local.get $bits) (i32.const 1))
                (i32.eqz (f64.le (f64.promote_f32 (f32.load (i32.add (local.get $map) (i32.shl (i32.add (local.get $i) (local.get $k)) (i32.const 2))))) (local.get $threshold)))))
              (br_if $last (local.get $k)))))
        (local.set $found (i32.popcnt (local.get $bits)))
        (if (i32.le_u (local.get $found) (local.get $skip))
          (then (local.set $skip (i32.sub (local.get $skip) (local.get $found))))
          (else
            (loop $each
              (if (local.get $skip)
                (then (local.set $skip (i32.sub (local.get $skip) (i32.const 1))))
                (else
                  (br_if $done (i32.ge_u (local.get $kept) (local.get $most)))
                  (local.set $pixel (i32.add (local.get $i) (i32.ctz (local.get $bits))))
                  (block $onRow
                    (loop $down
                      (br_if $onRow (i32.lt_u (local.get $pixel) (local.get $rowEnd)))
                      (local.set $row (i32.add (local.get $row) (i32.const 1)))
                      (local.set $rowEnd (i32.add (local.get $rowEnd) (local.get $width)))
                      (br $down)))
                  (local.set $at (i32.add (local.get $points) (i32.shl (local.get $kept) (i32.const 4))))
                  ;; x's jitter drawn first, then y's.
                  (local.set $seed (call $jitter (local.get $seed)))
                  (f64.store offset=8 (local.get $at) (f64.mul
                    (f64.sub (f64.add (f64.convert_i32_u (i32.sub (local.get $pixel) (i32.sub (local.get $rowEnd) (local.get $width)))) (f64.div (f64.convert_i32_u (local.get $seed)) (f64.const 0x1p31))) (local.get $halfWidth))
                    (local.get $kx)))
                  (local.set $seed (call $jitter (local.get $seed)))
                  (f64.store (local.get $at) (f64.mul
                    (f64.sub (f64.add (f64.convert_i32_u (local.get $row)) (f64.div (f64.convert_i32_u (local.get $seed)) (f64.const 0x1p31))) (local.get $halfHeight))
                    (local.get $ky)))
                  (local.set $kept (i32.add (local.get $kept) (i32.const 1)))
                  (local.set $skip (i32.sub (local.get $every) (i32.const 1)))))
              (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
              (br_if $each (local.get $bits)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $next)))
    (local.get $kept))

  ;; The seed after $seed of the points' jitter (the seed over 2^31), a linear congruence taken
  ;; in doubles as JavaScript's numbers take it: the product rounded, then its low 31 bits.
  (func $jitter (param $seed i32) (result i32)
    (i32.and
      (i32.wrap_i64 (i64.trunc_f64_s (f64.add (f64.mul (f64.convert_i32_u (local.get $seed)) (f64.const 1103515245)) (f64.const 12345))))
      (i32.const 0x7fffffff)))

  ;; A pass's terms, 112 bytes at $to: for each of its two directions (cosine and sine at $first
  ;; and at $second), the cosine in both lanes and the sine negated in the first (across:
  ;; y·cos − x·sin, as y·cos + x·(−sin); along: x·cos + y·sin); then $reach, 1 and 2^52 in both
  ;; lanes. Kept in memory rather than locals: V8 builds a local's vector again in every pass of a loop.
  (func $terms (param $to i32) (param $first i32) (param $second i32) (param $reach f64)
    (v128.store offset=0 (local.get $to) (f64x2.splat (f64.load (local.get $first))))
    (v128.store offset=16 (local.get $to) (f64x2.replace_lane 0 (f64x2.splat (f64.load offset=8 (local.get $first))) (f64.neg (f64.load offset=8 (local.get $first)))))
    (v128.store offset=32 (local.get $to) (f64x2.splat (f64.load (local.get $second))))
    (v128.store offset=48 (local.get $to) (f64x2.replace_lane 0 (f64x2.splat (f64.load offset=8 (local.get $second))) (f64.neg (f64.load offset=8 (local.get $second)))))
    (v128.store offset=64 (local.get $to) (f64x2.splat (local.get $reach)))
    (v128.store offset=80 (local.get $to) (f64x2.splat (f64.const 1)))
    (v128.store offset=96 (local.get $to) (f64x2.splat (f64.const 0x1p52))))

  ;; The energy of the steps of the $count doubles at $bins: each step's square, summed in order.
  (func $stepEnergy (param $bins i32) (param $count i32) (result f64)
    (local $i i32) (local $energy f64) (local $before f64) (local $bin f64) (local $step f64)
    (local.set $before (f64.load (local.get $bins)))
    (local.set $i (i32.const 1))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $bin (f64.load (i32.add (local.get $bins) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $step (f64.sub (local.get $bin) (local.get $before)))
        (local.set $energy (f64.add (local.get $energy) (f64.mul (local.get $step) (local.get $step))))
        (local.set $before (local.get $bin))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $energy))

  ;; The sharpness of $count points at $points (each y then x, doubles) in each of $directions
  ;; directions at $cosSin (each its cosine then its sine), written at $energies (each direction's
  ;; energy across its lines, then along them). Two directions a pass, the pass's terms (see
  ;; $terms) at $terms and its four profiles of $bins doubles each at $profiles, so that the bins
  ;; each point adds to, which the next point often adds to again, are four apart. An odd last
  ;; direction is profiled twice. A point's projections (across, along) are a pair of lanes, each
  ;; split into its bin (the floor, as the low bits of 2^52 added) and its share of the next bin.
  ;; The two directions of a pass are written out, not called: V8 does not inline wasm calls.
  (func (export "sharpness") (param $points i32) (param $count i32) (param $reach f64) (param $cosSin i32) (param $directions i32)
    (param $terms i32) (param $profiles i32) (param $bins i32) (param $energies i32)
    (local $d i32) (local $second i32) (local $i i32) (local $at i32) (local $yx v128) (local $xy v128)
    (local $profile i32) (local $across0 i32) (local $along0 i32) (local $across1 i32) (local $along1 i32)
    (local $position v128) (local $floor v128) (local $share v128) (local $rest v128) (local $low v128)
    (local.set $profile (i32.shl (local.get $bins) (i32.const 3)))
    (local.set $across0 (local.get $profiles))
    (local.set $along0 (i32.add (local.get $across0) (local.get $profile)))
    (local.set $across1 (i32.add (local.get $along0) (local.get $profile)))
    (local.set $along1 (i32.add (local.get $across1) (local.get $profile)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $d) (local.get $directions)))
        (local.set $second (select (i32.add (local.get $d) (i32.const 1)) (local.get $d) (i32.lt_u (i32.add (local.get $d) (i32.const 1)) (local.get $directions))))
        (call $terms (local.get $terms) (i32.add (local.get $cosSin) (i32.shl (local.get $d) (i32.const 4))) (i32.add (local.get $cosSin) (i32.shl (local.get $second) (i32.const 4))) (local.get $reach))
        (memory.fill (local.get $across0) (i32.const 0) (i32.shl (local.get $profile) (i32.const 2)))
        (local.set $i (i32.const 0))
        (block $pointsDone
          (loop $point
            (br_if $pointsDone (i32.ge_u (local.get $i) (local.get $count)))
            (local.set $yx (v128.load (i32.add (local.get $points) (i32.shl (local.get $i) (i32.const 4)))))
            (local.set $xy (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $yx) (local.get $yx)))
            ;; Direction one.
            (local.set $position (f64x2.add (f64x2.add
              (f64x2.mul (local.get $yx) (v128.load offset=0 (local.get $terms)))
              (f64x2.mul (local.get $xy) (v128.load offset=16 (local.get $terms))))
              (v128.load offset=64 (local.get $terms))))
            (local.set $floor (f64x2.floor (local.get $position)))
            (local.set $share (f64x2.sub (local.get $position) (local.get $floor)))
            (local.set $rest (f64x2.sub (v128.load offset=80 (local.get $terms)) (local.get $share)))
            (local.set $low (f64x2.add (local.get $floor) (v128.load offset=96 (local.get $terms))))
            (local.set $at (i32.add (local.get $across0) (i32.shl (i32x4.extract_lane 0 (local.get $low)) (i32.const 3))))
            (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (f64x2.extract_lane 0 (local.get $rest))))
            (f64.store offset=8 (local.get $at) (f64.add (f64.load offset=8 (local.get $at)) (f64x2.extract_lane 0 (local.get $share))))
            (local.set $at (i32.add (local.get $along0) (i32.shl (i32x4.extract_lane 2 (local.get $low)) (i32.const 3))))
            (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (f64x2.extract_lane 1 (local.get $rest))))
            (f64.store offset=8 (local.get $at) (f64.add (f64.load offset=8 (local.get $at)) (f64x2.extract_lane 1 (local.get $share))))
            ;; Direction two.
            (local.set $position (f64x2.add (f64x2.add
              (f64x2.mul (local.get $yx) (v128.load offset=32 (local.get $terms)))
              (f64x2.mul (local.get $xy) (v128.load offset=48 (local.get $terms))))
              (v128.load offset=64 (local.get $terms))))
            (local.set $floor (f64x2.floor (local.get $position)))
            (local.set $share (f64x2.sub (local.get $position) (local.get $floor)))
            (local.set $rest (f64x2.sub (v128.load offset=80 (local.get $terms)) (local.get $share)))
            (local.set $low (f64x2.add (local.get $floor) (v128.load offset=96 (local.get $terms))))
            (local.set $at (i32.add (local.get $across1) (i32.shl (i32x4.extract_lane 0 (local.get $low)) (i32.const 3))))
            (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (f64x2.extract_lane 0 (local.get $rest))))
            (f64.store offset=8 (local.get $at) (f64.add (f64.load offset=8 (local.get $at)) (f64x2.extract_lane 0 (local.get $share))))
            (local.set $at (i32.add (local.get $along1) (i32.shl (i32x4.extract_lane 2 (local.get $low)) (i32.const 3))))
            (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (f64x2.extract_lane 1 (local.get $rest))))
            (f64.store offset=8 (local.get $at) (f64.add (f64.load offset=8 (local.get $at)) (f64x2.extract_lane 1 (local.get $share))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $point)))
        (local.set $at (i32.add (local.get $energies) (i32.shl (local.get $d) (i32.const 4))))
        (f64.store (local.get $at) (call $stepEnergy (local.get $across0) (local.get $bins)))
        (f64.store offset=8 (local.get $at) (call $stepEnergy (local.get $along0) (local.get $bins)))
        (local.set $at (i32.add (local.get $energies) (i32.shl (local.get $second) (i32.const 4))))
        (f64.store (local.get $at) (call $stepEnergy (local.get $across1) (local.get $bins)))
        (f64.store offset=8 (local.get $at) (call $stepEnergy (local.get $along1) (local.get $bins)))
        (local.set $d (i32.add (local.get $d) (i32.const 2)))
        (br $next)))))
