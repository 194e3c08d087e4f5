// The `stopword` package ships no types; these are the two lists the analyser reads.
declare module 'stopword' {
  export const eng: readonly string[];
  export const zho: readonly string[];
}
