/** Where the dashboard lives. */
export const UI = '/ui';
