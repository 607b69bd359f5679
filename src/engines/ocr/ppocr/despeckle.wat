;; The despeckle of despeckle.ts (a 3×3 median taken across, then down, each channel, and each
;; despeckled pixel's grey), sixteen bytes at a time. Assembled by `npm run wasm:build` into
;; despeckle-wasm.ts, which is what the gateway loads.
;;
;; Memory: the grey tables of lighting.ts at 0 (written by the caller), then regions the caller
;; places: the RGB pixels, the medians across and the greys, each followed by at least 48 bytes
;; that may be read and written over (vectors that run past a region's end are cheaper than a
;; scalar tail; what they write there is written over or never read).
(module
  (memory (export "memory") 1)

  ;; The grey tables, in bytes from 0: each sRGB byte's weighted linear light, f32, for red (at 0),
  ;; green (1024) and blue (2048); then linear light (0–256) back to sRGB, i32 (3072).

  ;; Each byte from $start to $end of the bytes at $from, the median of three with the bytes
  ;; $distance before and after it, written at $to.
  (func $medians (param $from i32) (param $to i32) (param $start i32) (param $end i32) (param $distance i32)
    (local $i i32) (local $before v128) (local $at v128)
    (local.set $i (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $before (v128.load (i32.sub (i32.add (local.get $from) (local.get $i)) (local.get $distance))))
        (local.set $at (v128.load (i32.add (local.get $from) (local.get $i))))
        (v128.store (i32.add (local.get $to) (local.get $i))
          (i8x16.max_u
            (i8x16.min_u (local.get $before) (local.get $at))
            (i8x16.min_u
              (i8x16.max_u (local.get $before) (local.get $at))
              (v128.load (i32.add (i32.add (local.get $from) (local.get $i)) (local.get $distance))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next))))

  ;; Each byte's median of three with the same channel's bytes of the pixels left and right,
  ;; written at $to; each row's first and last pixel (whose neighbour past the edge is itself,
  ;; so whose median is itself) copied.
  (func $across (param $from i32) (param $to i32) (param $row i32) (param $size i32)
    (local $start i32)
    ;; Flat over the whole image: the bytes at each row's ends, which mix in the next row's, are copied over after.
    (call $medians (local.get $from) (local.get $to) (i32.const 3) (i32.sub (local.get $size) (i32.const 3)) (i32.const 3))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $start) (local.get $size)))
        (memory.copy (i32.add (local.get $to) (local.get $start)) (i32.add (local.get $from) (local.get $start)) (i32.const 3))
        (memory.copy
          (i32.sub (i32.add (i32.add (local.get $to) (local.get $start)) (local.get $row)) (i32.const 3))
          (i32.sub (i32.add (i32.add (local.get $from) (local.get $start)) (local.get $row)) (i32.const 3))
          (i32.const 3))
        (local.set $start (i32.add (local.get $start) (local.get $row)))
        (br $next))))

  ;; Each byte's median of three with the same byte of the rows above and below, written at $to;
  ;; the first and last rows (whose neighbour past the edge is themselves) copied after, as the
  ;; medians' last vector may run into the last row.
  (func $down (param $from i32) (param $to i32) (param $row i32) (param $size i32)
    (local $lastRow i32)
    (local.set $lastRow (i32.sub (local.get $size) (local.get $row)))
    (call $medians (local.get $from) (local.get $to) (local.get $row) (local.get $lastRow) (local.get $row))
    (memory.copy (local.get $to) (local.get $from) (local.get $row))
    (memory.copy (i32.add (local.get $to) (local.get $lastRow)) (i32.add (local.get $from) (local.get $lastRow)) (local.get $row)))

  ;; Each of $count RGB pixels' grey, written at $to, as lighting.ts's greyOfLinear takes it: the
  ;; same single-precision operations (IEEE, lane by lane) on the same tables, so the same bits.
  ;; Sixteen pixels at a time, in fours; sixteen white pixels (a printed page's paper) have the
  ;; greys of the first sixteen seen. Written out, not called: V8 does not inline wasm calls, which
  ;; would cost more than the work.
  (func $greys (param $from i32) (param $to i32) (param $count i32)
    (local $pixel i32) (local $at i32) (local $group i32) (local $white v128) (local $whiteSeen i32) (local $isWhite i32)
    (local $luminances v128) (local $scaled v128) (local $index v128) (local $tableAt v128) (local $firstPairs v128) (local $lastPairs v128) (local $low v128) (local $grey v128)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $pixel) (local.get $count)))
        (local.set $group (local.get $pixel))
        (local.set $at (i32.add (local.get $from) (i32.mul (local.get $pixel) (i32.const 3))))
        (local.set $isWhite
          (i32.eqz
            (v128.any_true
              (v128.not
                (v128.and
                  (v128.and (v128.load (local.get $at)) (v128.load offset=16 (local.get $at)))
                  (v128.load offset=32 (local.get $at)))))))
        (if (i32.and (local.get $isWhite) (local.get $whiteSeen))
          (then
            (v128.store (i32.add (local.get $to) (local.get $pixel)) (local.get $white))
            (local.set $pixel (i32.add (local.get $pixel) (i32.const 16))))
          (else
            (loop $four
              ;; Each pixel's luminance (red's, green's and blue's weighted linear light, added in that
              ;; order), × 255, clamped to 0–255 (pmin and pmax are min and max where there is no NaN).
              (local.set $luminances
                (f32x4.splat
                  (f32.add
                    (f32.add
                      (f32.load (i32.shl (i32.load8_u offset=0 (local.get $at)) (i32.const 2)))
                      (f32.load offset=1024 (i32.shl (i32.load8_u offset=1 (local.get $at)) (i32.const 2))))
                    (f32.load offset=2048 (i32.shl (i32.load8_u offset=2 (local.get $at)) (i32.const 2))))))
              (local.set $luminances
                (f32x4.replace_lane 1 (local.get $luminances)
                  (f32.add
                    (f32.add
                      (f32.load (i32.shl (i32.load8_u offset=3 (local.get $at)) (i32.const 2)))
                      (f32.load offset=1024 (i32.shl (i32.load8_u offset=4 (local.get $at)) (i32.const 2))))
                    (f32.load offset=2048 (i32.shl (i32.load8_u offset=5 (local.get $at)) (i32.const 2))))))
              (local.set $luminances
                (f32x4.replace_lane 2 (local.get $luminances)
                  (f32.add
                    (f32.add
                      (f32.load (i32.shl (i32.load8_u offset=6 (local.get $at)) (i32.const 2)))
                      (f32.load offset=1024 (i32.shl (i32.load8_u offset=7 (local.get $at)) (i32.const 2))))
                    (f32.load offset=2048 (i32.shl (i32.load8_u offset=8 (local.get $at)) (i32.const 2))))))
              (local.set $luminances
                (f32x4.replace_lane 3 (local.get $luminances)
                  (f32.add
                    (f32.add
                      (f32.load (i32.shl (i32.load8_u offset=9 (local.get $at)) (i32.const 2)))
                      (f32.load offset=1024 (i32.shl (i32.load8_u offset=10 (local.get $at)) (i32.const 2))))
                    (f32.load offset=2048 (i32.shl (i32.load8_u offset=11 (local.get $at)) (i32.const 2))))))
              (local.set $scaled
                (f32x4.pmin (f32x4.splat (f32.const 255))
                  (f32x4.pmax (f32x4.splat (f32.const 0)) (f32x4.mul (f32x4.splat (f32.const 255)) (local.get $luminances)))))
              ;; Back to sRGB: the table's entry at the integer part and the next (read as one pair),
              ;; interpolated by the fraction and rounded half to even.
              (local.set $index (i32x4.trunc_sat_f32x4_s (local.get $scaled)))
              (local.set $tableAt (i32x4.shl (local.get $index) (i32.const 2)))
              (local.set $firstPairs (i64x2.replace_lane 1 (i64x2.splat (i64.load offset=3072 (i32x4.extract_lane 0 (local.get $tableAt)))) (i64.load offset=3072 (i32x4.extract_lane 1 (local.get $tableAt)))))
              (local.set $lastPairs (i64x2.replace_lane 1 (i64x2.splat (i64.load offset=3072 (i32x4.extract_lane 2 (local.get $tableAt)))) (i64.load offset=3072 (i32x4.extract_lane 3 (local.get $tableAt)))))
              (local.set $low (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $firstPairs) (local.get $lastPairs)))
              (local.set $grey
                (i32x4.trunc_sat_f32x4_s
                  (f32x4.nearest
                    (f32x4.add
                      (f32x4.convert_i32x4_s (local.get $low))
                      (f32x4.mul
                        (f32x4.convert_i32x4_s
                          (i32x4.sub
                            (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $firstPairs) (local.get $lastPairs))
                            (local.get $low)))
                        (f32x4.sub (local.get $scaled) (f32x4.convert_i32x4_s (local.get $index))))))))
              (local.set $grey (i16x8.narrow_i32x4_u (local.get $grey) (local.get $grey)))
              (v128.store32_lane 0 (i32.add (local.get $to) (local.get $pixel)) (i8x16.narrow_i16x8_u (local.get $grey) (local.get $grey)))
              (local.set $pixel (i32.add (local.get $pixel) (i32.const 4)))
              (local.set $at (i32.add (local.get $at) (i32.const 12)))
              (br_if $four (i32.and (local.get $pixel) (i32.const 15))))
            (if (local.get $isWhite)
              (then
                (local.set $white (v128.load (i32.add (local.get $to) (local.get $group))))
                (local.set $whiteSeen (i32.const 1))))))
        (br $next))))

  ;; The `width` × `height` RGB pixels at $pixels despeckled in place, their medians across
  ;; written at $across on the way, and their greys at $greysAt. An empty image is left as it is.
  (func (export "despeckle") (param $pixels i32) (param $across i32) (param $greysAt i32) (param $width i32) (param $height i32)
    (local $row i32) (local $size i32)
    (local.set $row (i32.mul (local.get $width) (i32.const 3)))
    (local.set $size (i32.mul (local.get $row) (local.get $height)))
    (if (i32.eqz (local.get $size)) (then (return)))
    (call $across (local.get $pixels) (local.get $across) (local.get $row) (local.get $size))
    (call $down (local.get $across) (local.get $pixels) (local.get $row) (local.get $size))
    (call $greys (local.get $pixels) (local.get $greysAt) (i32.mul (local.get $width) (local.get $height)))))
