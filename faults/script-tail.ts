/** How every story script ends, A the holder and B the other client: both write, then both release. */
export const TAIL = ['A write', 'B write', 'A release', 'B release'] as const;
