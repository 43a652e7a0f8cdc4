// Small hand-made views (docs/rules.md's State JSON, view form: null for a hidden card) for the
// unit tests of the play page's pure parts.

// Three columns: t1 has 2 face-down cards under 9H 8S 7H; t2 is empty; t3 is one face-up
// king. Two cells (c1 holds QD), two foundations (f1 a complete run), a stock of 6.
export function smallView() {
  return {
    variant: "astrocyte",
    tableau: [[null, null, "9H", "8S", "7H"], [], ["KC"]],
    face_down: [2, 0, 0],
    cells: ["QD", null],
    foundations: [["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"], []],
    stock: [null, null, null, null, null, null],
  };
}
