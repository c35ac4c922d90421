import { InvalidArgumentError } from 'commander';

/** A commander argument parser accepting whole numbers from `min` to `max`; anything else is a one-line usage error. */
export function wholeNumber(min: number, max: number, unit = ''): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`);
    }
    return n;
  };
}

/** A TCP port; 0 lets the system pick a free one. */
export const port = wholeNumber(0, 65535);
