;; The bilinear sampling of crop.ts: each crop pixel blended from the page's four about it,
;; normalised, ((v / 255) − 0.5) / 0.5, into BGR planes of single-precision floats. The same
;; double-precision operations in the same order as the definition (IEEE, as JavaScript's), each
;; float rounded once as a Float32Array store rounds it, so the same bits. Assembled by
;; `npm run wasm:build` into crop-wasm.ts, which is what the gateway loads.
;;
;; Memory: regions the caller places. The caller copies only the rectangle of the page a line
;; draws on, its rows $rowBytes apart; $page is where its pixel (0, 0) would be, so it may lie
;; before the copy (or wrap below 0). A crop's rows are written an even number of floats apart
;; (see crop.ts's rowFloats), its BGR planes one after another.
(module
  (memory (export "memory") 1)

  ;; v / 127.5 − 1 maps a byte onto −1 to 1: a multiplication (by 1 / 127.5 as JavaScript rounds it).
  (global $perLevel f64 (f64.const 0x1.0101010101010p-7))

  ;; The page row starting $at in the page's data blended across at the crop's columns: the
  ;; columns at $columns ($width i32 offsets of the pixel before, $width i32 steps to the next,
  ;; $width f64 shares of the next), written at $row as three planes of doubles, red, green and
  ;; blue, $padded apart.
  (func $blendAcross (param $page i32) (param $at i32) (param $columns i32) (param $width i32) (param $row i32) (param $padded i32)
    (local $x i32) (local $fx f64) (local $gx f64) (local $a i32) (local $b i32) (local $to i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $width)))
        (local.set $fx (f64.load (i32.add (i32.add (local.get $columns) (i32.shl (local.get $width) (i32.const 3))) (i32.shl (local.get $x) (i32.const 3)))))
        (local.set $gx (f64.sub (f64.const 1) (local.get $fx)))
        (local.set $a (i32.add (i32.add (local.get $page) (local.get $at)) (i32.load (i32.add (local.get $columns) (i32.shl (local.get $x) (i32.const 2))))))
        (local.set $b (i32.add (local.get $a) (i32.load (i32.add (i32.add (local.get $columns) (i32.shl (local.get $width) (i32.const 2))) (i32.shl (local.get $x) (i32.const 2))))))
        (local.set $to (i32.add (local.get $row) (i32.shl (local.get $x) (i32.const 3))))
        (f64.store (local.get $to)
          (f64.add (f64.mul (f64.convert_i32_u (i32.load8_u (local.get $a))) (local.get $gx)) (f64.mul (f64.convert_i32_u (i32.load8_u (local.get $b))) (local.get $fx))))
        (local.set $to (i32.add (local.get $to) (local.get $padded)))
        (f64.store (local.get $to)
          (f64.add (f64.mul (f64.convert_i32_u (i32.load8_u offset=1 (local.get $a))) (local.get $gx)) (f64.mul (f64.convert_i32_u (i32.load8_u offset=1 (local.get $b))) (local.get $fx))))
        (local.set $to (i32.add (local.get $to) (local.get $padded)))
        (f64.store (local.get $to)
          (f64.add (f64.mul (f64.convert_i32_u (i32.load8_u offset=2 (local.get $a))) (local.get $gx)) (f64.mul (f64.convert_i32_u (i32.load8_u offset=2 (local.get $b))) (local.get $fx))))
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (br $next))))

  ;; $count doubles of the rows at $above and $below blended down (shares $gy and $fy, both lanes)
  ;; and normalised, two at a time, as floats at $to (the last pair may run one float past $count).
  (func $blendDown (param $above i32) (param $below i32) (param $count i32) (param $gy v128) (param $fy v128) (param $to i32)
    (local $x i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $count)))
        (v128.store64_lane 0 (i32.add (local.get $to) (i32.shl (local.get $x) (i32.const 2)))
          (f32x4.demote_f64x2_zero
            (f64x2.sub
              (f64x2.mul
                (f64x2.add
                  (f64x2.mul (v128.load (i32.add (local.get $above) (i32.shl (local.get $x) (i32.const 3)))) (local.get $gy))
                  (f64x2.mul (v128.load (i32.add (local.get $below) (i32.shl (local.get $x) (i32.const 3)))) (local.get $fy)))
                (f64x2.splat (global.get $perLevel)))
              (f64x2.splat (f64.const 1)))))
        (local.set $x (i32.add (local.get $x) (i32.const 2)))
        (br $next))))

  ;; A line that lies level in the page (see crop.ts's cutLevel): its columns' samples at
  ;; $columns (as $blendAcross reads them) and its rows' at $rows (the same, $height long, the
  ;; offsets those of page rows, $rowBytes apart), each page row blended across once into one of the two rows of
  ;; doubles at $upper and $lower (3 × $padded each), then every crop row blended down from them,
  ;; written at $out, its rows $padded floats apart (an even $width or one more, so that the
  ;; blend's pairs stay in the row).
  (func (export "cutLevel") (param $page i32) (param $columns i32) (param $rows i32) (param $width i32) (param $height i32) (param $padded i32)
    (param $upper i32) (param $lower i32) (param $out i32)
    (local $y i32) (local $upperAt i32) (local $lowerAt i32) (local $swap i32) (local $top i32) (local $bottom i32)
    (local $fy f64) (local $blue i32) (local $plane i32) (local $doubles i32)
    (local.set $upperAt (i32.const -1))
    (local.set $lowerAt (i32.const -1))
    (local.set $plane (i32.shl (i32.mul (local.get $padded) (local.get $height)) (i32.const 2)))
    (local.set $doubles (i32.shl (local.get $padded) (i32.const 3)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $y) (local.get $height)))
        (local.set $top (i32.load (i32.add (local.get $rows) (i32.shl (local.get $y) (i32.const 2)))))
        (local.set $bottom (i32.add (local.get $top)
          (i32.load (i32.add (i32.add (local.get $rows) (i32.shl (local.get $height) (i32.const 2))) (i32.shl (local.get $y) (i32.const 2))))))
        (if (i32.and (i32.ne (local.get $upperAt) (local.get $top)) (i32.eq (local.get $lowerAt) (local.get $top)))
          (then
            (local.set $swap (local.get $upper)) (local.set $upper (local.get $lower)) (local.set $lower (local.get $swap))
            (local.set $lowerAt (local.get $upperAt)) (local.set $upperAt (local.get $top))))
        (if (i32.ne (local.get $upperAt) (local.get $top))
          (then
            (call $blendAcross (local.get $page) (local.get $top) (local.get $columns) (local.get $width) (local.get $upper) (local.get $doubles))
            (local.set $upperAt (local.get $top))))
        (if (i32.ne (local.get $lowerAt) (local.get $bottom))
          (then
            (call $blendAcross (local.get $page) (local.get $bottom) (local.get $columns) (local.get $width) (local.get $lower) (local.get $doubles))
            (local.set $lowerAt (local.get $bottom))))
        (local.set $fy (f64.load (i32.add (i32.add (local.get $rows) (i32.shl (local.get $height) (i32.const 3))) (i32.shl (local.get $y) (i32.const 3)))))
        (local.set $blue (i32.add (local.get $out) (i32.shl (i32.mul (local.get $y) (local.get $padded)) (i32.const 2))))
        ;; Red to the last plane, green to the middle one, blue to the first.
        (call $blendDown (local.get $upper) (local.get $lower) (local.get $width)
          (f64x2.splat (f64.sub (f64.const 1) (local.get $fy))) (f64x2.splat (local.get $fy)) (i32.add (local.get $blue) (i32.shl (local.get $plane) (i32.const 1))))
        (call $blendDown (i32.add (local.get $upper) (local.get $doubles)) (i32.add (local.get $lower) (local.get $doubles)) (local.get $width)
          (f64x2.splat (f64.sub (f64.const 1) (local.get $fy))) (f64x2.splat (local.get $fy)) (i32.add (local.get $blue) (local.get $plane)))
        (call $blendDown (i32.add (local.get $upper) (i32.shl (local.get $doubles) (i32.const 1))) (i32.add (local.get $lower) (i32.shl (local.get $doubles) (i32.const 1))) (local.get $width)
          (f64x2.splat (f64.sub (f64.const 1) (local.get $fy))) (f64x2.splat (local.get $fy)) (local.get $blue))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $next))))

  ;; One crop row at any slant (see crop.ts's cutSlanted), two pixels at a time (a row of odd
  ;; width ends with a pixel sampled twice, written past it): its homography terms start at $u,
  ;; $v, $d and step by $du, $dv, $dd (each lane stepped twice, so taking the steps one pixel at
  ;; a time would); divided by $d unless $affine; each place clamped to the page ($w × $h pixels,
  ;; rows $rowBytes apart) and its neighbours past the edge the edge's, unless the row lies
  ;; $inside it. Written at $out, its planes $plane bytes apart. Each lane's four pixels'
  ;; addresses are written out, not called: V8 does not inline wasm calls.
  (func (export "cutRow") (param $page i32) (param $w i32) (param $h i32) (param $rowBytes i32)
    (param $u f64) (param $v f64) (param $d f64) (param $du f64) (param $dv f64) (param $dd f64)
    (param $affine i32) (param $inside i32) (param $width i32) (param $out i32) (param $plane i32)
    (local $x i32) (local $us v128) (local $vs v128) (local $ds v128) (local $sx v128) (local $sy v128) (local $x0 v128) (local $y0 v128)
    (local $fx v128) (local $fy v128) (local $gx v128) (local $gy v128) (local $wa v128) (local $wb v128) (local $wc v128) (local $we v128)
    (local $a0 i32) (local $b0 i32) (local $c0 i32) (local $e0 i32) (local $a1 i32) (local $b1 i32) (local $c1 i32) (local $e1 i32)
    (local.set $us (f64x2.replace_lane 1 (f64x2.splat (local.get $u)) (f64.add (local.get $u) (local.get $du))))
    (local.set $vs (f64x2.replace_lane 1 (f64x2.splat (local.get $v)) (f64.add (local.get $v) (local.get $dv))))
    (local.set $ds (f64x2.replace_lane 1 (f64x2.splat (local.get $d)) (f64.add (local.get $d) (local.get $dd))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $width)))
        (if (local.get $affine)
          (then
            (local.set $sx (f64x2.sub (local.get $us) (f64x2.splat (f64.const 0.5))))
            (local.set $sy (f64x2.sub (local.get $vs) (f64x2.splat (f64.const 0.5)))))
          (else
            (local.set $sx (f64x2.sub (f64x2.div (local.get $us) (local.get $ds)) (f64x2.splat (f64.const 0.5))))
            (local.set $sy (f64x2.sub (f64x2.div (local.get $vs) (local.get $ds)) (f64x2.splat (f64.const 0.5))))))
        (if (i32.eqz (local.get $inside))
          (then
            (local.set $sx (f64x2.min (f64x2.splat (f64.convert_i32_s (i32.sub (local.get $w) (i32.const 1)))) (f64x2.max (f64x2.splat (f64.const 0)) (local.get $sx))))
            (local.set $sy (f64x2.min (f64x2.splat (f64.convert_i32_s (i32.sub (local.get $h) (i32.const 1)))) (f64x2.max (f64x2.splat (f64.const 0)) (local.get $sy))))))
        (local.set $x0 (i32x4.trunc_sat_f64x2_s_zero (local.get $sx)))
        (local.set $y0 (i32x4.trunc_sat_f64x2_s_zero (local.get $sy)))
        (local.set $fx (f64x2.sub (local.get $sx) (f64x2.convert_low_i32x4_s (local.get $x0))))
        (local.set $fy (f64x2.sub (local.get $sy) (f64x2.convert_low_i32x4_s (local.get $y0))))
        (local.set $gx (f64x2.sub (f64x2.splat (f64.const 1)) (local.get $fx)))
        (local.set $gy (f64x2.sub (f64x2.splat (f64.const 1)) (local.get $fy)))
        (local.set $wa (f64x2.mul (local.get $gx) (local.get $gy)))
        (local.set $wb (f64x2.mul (local.get $fx) (local.get $gy)))
        (local.set $wc (f64x2.mul (local.get $gx) (local.get $fy)))
        (local.set $we (f64x2.mul (local.get $fx) (local.get $fy)))
        (local.set $a0 (i32.add (local.get $page) (i32.add (i32.mul (i32x4.extract_lane 0 (local.get $y0)) (local.get $rowBytes)) (i32.mul (i32x4.extract_lane 0 (local.get $x0)) (i32.const 3)))))
        (local.set $b0 (i32.add (local.get $a0) (select (i32.const 3) (i32.const 0) (i32.or (local.get $inside) (i32.lt_s (i32.add (i32x4.extract_lane 0 (local.get $x0)) (i32.const 1)) (local.get $w))))))
        (local.set $c0 (i32.add (local.get $a0) (select (local.get $rowBytes) (i32.const 0) (i32.or (local.get $inside) (i32.lt_s (i32.add (i32x4.extract_lane 0 (local.get $y0)) (i32.const 1)) (local.get $h))))))
        (local.set $e0 (i32.add (local.get $c0) (i32.sub (local.get $b0) (local.get $a0))))
        ;; The last pixel of a row of odd width, sampled twice: what its second lane reads may lie outside the page.
        (if (i32.lt_u (i32.add (local.get $x) (i32.const 1)) (local.get $width))
          (then
            (local.set $a1 (i32.add (local.get $page) (i32.add (i32.mul (i32x4.extract_lane 1 (local.get $y0)) (local.get $rowBytes)) (i32.mul (i32x4.extract_lane 1 (local.get $x0)) (i32.const 3)))))
            (local.set $b1 (i32.add (local.get $a1) (select (i32.const 3) (i32.const 0) (i32.or (local.get $inside) (i32.lt_s (i32.add (i32x4.extract_lane 1 (local.get $x0)) (i32.const 1)) (local.get $w))))))
            (local.set $c1 (i32.add (local.get $a1) (select (local.get $rowBytes) (i32.const 0) (i32.or (local.get $inside) (i32.lt_s (i32.add (i32x4.extract_lane 1 (local.get $y0)) (i32.const 1)) (local.get $h))))))
            (local.set $e1 (i32.add (local.get $c1) (i32.sub (local.get $b1) (local.get $a1)))))
          (else
            (local.set $a1 (local.get $a0)) (local.set $b1 (local.get $b0)) (local.set $c1 (local.get $c0)) (local.set $e1 (local.get $e0))))
        ;; Red to the last plane, green to the middle one, blue to the first.
        (v128.store64_lane 0 (i32.add (local.get $out) (i32.add (local.get $plane) (local.get $plane)))
          (f32x4.demote_f64x2_zero
            (f64x2.sub
              (f64x2.mul
                (f64x2.add
                  (f64x2.add
                    (f64x2.add (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=0 (local.get $a0)))) (f64.convert_i32_u (i32.load8_u offset=0 (local.get $a1)))) (local.get $wa)) (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=0 (local.get $b0)))) (f64.convert_i32_u (i32.load8_u offset=0 (local.get $b1)))) (local.get $wb)))
                    (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=0 (local.get $c0)))) (f64.convert_i32_u (i32.load8_u offset=0 (local.get $c1)))) (local.get $wc)))
                  (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=0 (local.get $e0)))) (f64.convert_i32_u (i32.load8_u offset=0 (local.get $e1)))) (local.get $we)))
                (f64x2.splat (global.get $perLevel)))
              (f64x2.splat (f64.const 1)))))
        (v128.store64_lane 0 (i32.add (local.get $out) (local.get $plane))
          (f32x4.demote_f64x2_zero
            (f64x2.sub
              (f64x2.mul
                (f64x2.add
                  (f64x2.add
                    (f64x2.add (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=1 (local.get $a0)))) (f64.convert_i32_u (i32.load8_u offset=1 (local.get $a1)))) (local.get $wa)) (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=1 (local.get $b0)))) (f64.convert_i32_u (i32.load8_u offset=1 (local.get $b1)))) (local.get $wb)))
                    (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=1 (local.get $c0)))) (f64.convert_i32_u (i32.load8_u offset=1 (local.get $c1)))) (local.get $wc)))
                  (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=1 (local.get $e0)))) (f64.convert_i32_u (i32.load8_u offset=1 (local.get $e1)))) (local.get $we)))
                (f64x2.splat (global.get $perLevel)))
              (f64x2.splat (f64.const 1)))))
        (v128.store64_lane 0 (local.get $out)
          (f32x4.demote_f64x2_zero
            (f64x2.sub
              (f64x2.mul
                (f64x2.add
                  (f64x2.add
                    (f64x2.add (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=2 (local.get $a0)))) (f64.convert_i32_u (i32.load8_u offset=2 (local.get $a1)))) (local.get $wa)) (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=2 (local.get $b0)))) (f64.convert_i32_u (i32.load8_u offset=2 (local.get $b1)))) (local.get $wb)))
                    (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=2 (local.get $c0)))) (f64.convert_i32_u (i32.load8_u offset=2 (local.get $c1)))) (local.get $wc)))
                  (f64x2.mul (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_u (i32.load8_u offset=2 (local.get $e0)))) (f64.convert_i32_u (i32.load8_u offset=2 (local.get $e1)))) (local.get $we)))
                (f64x2.splat (global.get $perLevel)))
              (f64x2.splat (f64.const 1)))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $us (f64x2.add (f64x2.add (local.get $us) (f64x2.splat (local.get $du))) (f64x2.splat (local.get $du))))
        (local.set $vs (f64x2.add (f64x2.add (local.get $vs) (f64x2.splat (local.get $dv))) (f64x2.splat (local.get $dv))))
        (local.set $ds (f64x2.add (f64x2.add (local.get $ds) (f64x2.splat (local.get $dd))) (f64x2.splat (local.get $dd))))
        (local.set $x (i32.add (local.get $x) (i32.const 2)))
        (br $next))))
)
