/** The recent conversation with the user, as the prompts see it. */
export interface InteractionHistory {
  /** The last `n` interactions as prompt-ready text; an empty string when there are none. Never throws. */
  formatRecent(n: number): string;
}
