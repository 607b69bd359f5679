;; The detector's input of lit-normalised.ts (writeLitNormalised): each RGB byte divided by its
;; pixel's brightness (times its gain, as lighting.ts's lightEvenly does, clipped to a byte) and
;; normalised as the model was trained, four pixels at a time. Assembled by `npm run wasm:build`
;; into lit-normalised-wasm.ts, which is what the gateway loads.
;;
;; Memory: lighting.ts's EVEN_GAIN at 0 (256 f64, written by the caller), then regions the caller
;; places: the RGB pixels, their brightnesses and the three planes written. The pixels are read 16
;; bytes past their last and the brightnesses 4; each plane is a whole number of vectors long (the
;; floats past the last pixel's are written over with what the bytes there make).
(module
  (memory (export "memory") 1)

  ;; $count pixels (RGB bytes at $pixels, a brightness byte each at $brightness) lit and normalised
  ;; into the blue, green and red planes at $planes, each $plane bytes after the one before; each
  ;; channel's normalisation is (value × ($scale…) − ($shift…)). Each channel's four values are lit
  ;; by their pixels' gains as JavaScript lights a byte, Math.min(255, value × gain) | 0, then
  ;; times scale, less shift, in double precision, and rounded to single: the same IEEE operations
  ;; in the same order, so the same bits (pmin is Math.min for numbers, and one instruction where
  ;; min, which orders zeros' signs, is several). Four pixels and their brightnesses as the four
  ;; before them (a printed page's paper) are written as those were. Written out, not called: V8
  ;; does not inline wasm calls, which cost more than the work.
  (func (export "litNormalised")
    (param $pixels i32) (param $brightness i32) (param $planes i32) (param $plane i32) (param $count i32)
    (param $blueScale f64) (param $blueShift f64) (param $greenScale f64) (param $greenShift f64) (param $redScale f64) (param $redShift f64)
    (local $pixel i32) (local $to i32) (local $zero v128) (local $max v128)
    (local $rgb v128) (local $lastRgb v128) (local $lit i32) (local $lastLit i32)
    (local $lowGains v128) (local $highGains v128) (local $values v128) (local $scale v128) (local $shift v128)
    (local $blue v128) (local $green v128) (local $red v128)
    (local.set $max (f64x2.splat (f64.const 255)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $pixel) (local.get $count)))
        (local.set $rgb (v128.load (i32.add (local.get $pixels) (i32.mul (local.get $pixel) (i32.const 3)))))
        (local.set $lit (i32.load (i32.add (local.get $brightness) (local.get $pixel))))
        (if (i32.or
              (i32.eqz (local.get $pixel))
              (i32.eqz
                (i32.and
                  (i32.eq (local.get $lit) (local.get $lastLit))
                  (i32.eq (i32.and (i8x16.bitmask (i8x16.eq (local.get $rgb) (local.get $lastRgb))) (i32.const 0xfff)) (i32.const 0xfff)))))
          (then
            (local.set $lowGains
              (f64x2.replace_lane 1
                (f64x2.splat (f64.load (i32.shl (i32.and (local.get $lit) (i32.const 255)) (i32.const 3))))
                (f64.load (i32.shl (i32.and (i32.shr_u (local.get $lit) (i32.const 8)) (i32.const 255)) (i32.const 3)))))
            (local.set $highGains
              (f64x2.replace_lane 1
                (f64x2.splat (f64.load (i32.shl (i32.and (i32.shr_u (local.get $lit) (i32.const 16)) (i32.const 255)) (i32.const 3))))
                (f64.load (i32.shl (i32.shr_u (local.get $lit) (i32.const 24)) (i32.const 3)))))
            ;; Blue (each pixel's third byte).
            (local.set $values (i8x16.shuffle 2 16 16 16 5 16 16 16 8 16 16 16 11 16 16 16 (local.get $rgb) (local.get $zero)))
            (local.set $scale (f64x2.splat (local.get $blueScale)))
            (local.set $shift (f64x2.splat (local.get $blueShift)))
            (local.set $blue
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
                (f32x4.demote_f64x2_zero
                  (f64x2.sub
                    (f64x2.mul
                      (f64x2.trunc (f64x2.pmin (local.get $max) (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $values)) (local.get $lowGains))))
                      (local.get $scale))
                    (local.get $shift)))
                (f32x4.demote_f64x2_zero
                  (f64x2.sub
                    (f64x2.mul
                      (f64x2.trunc
                        (f64x2.pmin
                          (local.get $max)
                          (f64x2.mul
                            (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $values) (local.get $values)))
                            (local.get $highGains))))
                      (local.get $scale))
                    (local.get $shift)))))
            ;; Green (the second byte).
            (local.set $values (i8x16.shuffle 1 16 16 16 4 16 16 16 7 16 16 16 10 16 16 16 (local.get $rgb) (local.get $zero)))
            (local.set $scale (f64x2.splat (local.get $greenScale)))
            (local.set $shift (f64x2.splat (local.get $greenShift)))
            (local.set $green
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
                (f32x4.demote_f64x2_zero
                  (f64x2.sub
                    (f64x2.mul
                      (f64x2.trunc (f64x2.pmin (local.get $max) (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $values)) (local.get $lowGains))))
                      (local.get $scale))
                    (local.get $shift)))
                (f32x4.demote_f64x2_zero
                  (f64x2.sub
                    (f64x2.mul
                      (f64x2.trunc
                        (f64x2.pmin
                          (local.get $max)
                          (f64x2.mul
                            (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $values) (local.get $values)))
                            (local.get $highGains))))
                      (local.get $scale))
                    (local.get $shift)))))
            ;; Red (the first byte).
            (local.set $values (i8x16.shuffle 0 16 16 16 3 16 16 16 6 16 16 16 9 16 16 16 (local.get $rgb) (local.get $zero)))
            (local.set $scale (f64x2.splat (local.get $redScale)))
            (local.set $shift (f64x2.splat (local.get $redShift)))
            (local.set $red
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
                (f32x4.demote_f64x2_zero
                  (f64x2.sub
                    (f64x2.mul
                      (f64x2.trunc (f64x2.pmin (local.get $max) (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $values)) (local.get $lowGains))))
                      (local.get $scale))
                    (local.get $shift)))
                (f32x4.demote_f64x2_zero
                  (f64x2.sub
                    (f64x2.mul
                      (f64x2.trunc
                        (f64x2.pmin
                          (local.get $max)
                          (f64x2.mul
                            (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $values) (local.get $values)))
                            (local.get $highGains))))
                      (local.get $scale))
                    (local.get $shift)))))
            (local.set $lastRgb (local.get $rgb))
            (local.set $lastLit (local.get $lit))))
        (local.set $to (i32.add (local.get $planes) (i32.shl (local.get $pixel) (i32.const 2))))
        (v128.store (local.get $to) (local.get $blue))
        (v128.store (i32.add (local.get $to) (local.get $plane)) (local.get $green))
        (v128.store (i32.add (local.get $to) (i32.shl (local.get $plane) (i32.const 1))) (local.get $red))
        (local.set $pixel (i32.add (local.get $pixel) (i32.const 4)))
        (br $next)))))
