;; One row of cells of print-height.ts's darkest view (each cell the darkest green of its
;; pixels sampled every $stride pixels each way), sixteen bytes at a time down its rows. Assembled
;; by `npm run wasm:build` into darkest-view-wasm.ts, which is what the gateway loads.
;;
;; Memory: regions the caller places: the cell row's sampled page rows, one after another, the
;; darkest of their bytes, and the view's greys. The rows and the darkest bytes are each followed
;; by at least 16 bytes that may be read and written over.
(module
  (memory (export "memory") 1)

  ;; The cells of the $rows page rows at $pixels (RGB, $rowBytes each), written at $cells (a row
  ;; of $cellCount greys): each byte's darkest down the rows is taken first, at $darkest, then
  ;; each cell's darkest green across its $samples samples, $stride pixels apart; a cell after
  ;; the row's last sample (where a cell holds more pixels than the view's step) stays white, as
  ;; does every cell of a cell row with no sampled row.
  (func (export "darkestCells")
    (param $pixels i32) (param $rows i32) (param $rowBytes i32) (param $stride i32) (param $samples i32)
    (param $darkest i32) (param $cells i32) (param $cellCount i32)
    (local $byte i32) (local $row i32) (local $down v128) (local $at i32) (local $sampled i32) (local $cell i32) (local $grey i32) (local $green i32)
    (block $downDone
      (loop $nextByte
        (br_if $downDone (i32.ge_u (local.get $byte) (local.get $rowBytes)))
        (local.set $down (i8x16.splat (i32.const 255)))
        (local.set $row (i32.const 0))
        (local.set $at (i32.add (local.get $pixels) (local.get $byte)))
        (block $rowsDone
          (loop $nextRow
            (br_if $rowsDone (i32.ge_u (local.get $row) (local.get $rows)))
            (local.set $down (i8x16.min_u (local.get $down) (v128.load (local.get $at))))
            (local.set $at (i32.add (local.get $at) (local.get $rowBytes)))
            (local.set $row (i32.add (local.get $row) (i32.const 1)))
            (br $nextRow)))
        (v128.store (i32.add (local.get $darkest) (local.get $byte)) (local.get $down))
        (local.set $byte (i32.add (local.get $byte) (i32.const 16)))
        (br $nextByte)))
    (memory.fill (local.get $cells) (i32.const 255) (local.get $cellCount))
    (local.set $cell (local.get $cells))
    (local.set $grey (i32.const 255))
    ;; Each sample's green, the second byte of its pixel.
    (local.set $byte (i32.const 1))
    (block $acrossDone
      (loop $nextSample
        (br_if $acrossDone (i32.ge_u (local.get $byte) (local.get $rowBytes)))
        (local.set $green (i32.load8_u (i32.add (local.get $darkest) (local.get $byte))))
        (if (i32.lt_u (local.get $green) (local.get $grey)) (then (local.set $grey (local.get $green))))
        (local.set $sampled (i32.add (local.get $sampled) (i32.const 1)))
        (if (i32.eq (local.get $sampled) (local.get $samples))
          (then
            (i32.store8 (local.get $cell) (local.get $grey))
            (local.set $cell (i32.add (local.get $cell) (i32.const 1)))
            (local.set $grey (i32.const 255))
            (local.set $sampled (i32.const 0))))
        (local.set $byte (i32.add (local.get $byte) (i32.mul (local.get $stride) (i32.const 3))))
        (br $nextSample)))
    (if (local.get $sampled) (then (i32.store8 (local.get $cell) (local.get $grey)))))
)
