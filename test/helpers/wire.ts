/**
 * JSON as read off the wire in tests: any shape. The assertions check it; this alias is the
 * one place the tests say `any`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Wire = any;
