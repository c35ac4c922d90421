/**
 * The bench's verdict on the 2 µs target goes by a 95 % interval for a median of rounds. The ranks it
 * takes are checked against the published table of distribution-free confidence intervals for a median
 * (the binomial sign-test ranks: n = 6 → 1st and 6th, 10 → 2nd and 9th, 21 → 6th and 16th, 35 → 12th
 * and 24th), not against the formula the code uses.
 */
import test from 'ava';
import { median, medianInterval } from '../../bench/stats.js';

const shuffled = (n: number) => [...Array(n).keys()].map((i) => i + 1).sort(() => Math.random() - 0.5);

test('the median of rounds is the middle value, whatever order the rounds came in', (t) => {
  t.is(median(shuffled(7)), 4);
  t.is(median([3, -1, 2]), 2);
});

test('medianInterval takes the ranks of the sign-test table for 95 % and gives none for too few rounds', (t) => {
  t.is(medianInterval(shuffled(5)), undefined);
  t.deepEqual(medianInterval(shuffled(6)), [1, 6]);
  t.deepEqual(medianInterval(shuffled(10)), [2, 9]);
  t.deepEqual(medianInterval(shuffled(21)), [6, 16]);
  t.deepEqual(medianInterval(shuffled(35)), [12, 24]);
  // A lower confidence narrows it: 90 % for 21 rounds is the 7th and 15th.
  t.deepEqual(medianInterval(shuffled(21), 0.9), [7, 15]);
});
