"""English: the second edition, written for English readers."""

STRINGS: dict[str, str] = {
    "title": "Chapter 27 · self-attention: one unmasked head",
    "scale": "Scale 1/√d_k",
    "row_sum": "row sum",
    "normalization_axis": "normalized over",
    "terms": "terms",
    "loss": "L",
    "batch_independent": "batch elements are independent",
    "batch_dependent": "batch elements affect each other",
    "empty_batch": "empty batch",
    "narrow_values": "d_v ≠ d_k",
    "zero_grad_query": "query gradient is zero",
    "zero_grad_key": "key gradient is zero",
    "identical_keys": "identical keys → weight rows",
    "permutation": "permuting positions {order} in Q, K and V permutes the output the same way; difference",
    "all_keys_visible": "no mask: every query sees every key position",
    "future.later": "{query} → {keys}: weights {weights}, together {total}",
    "future.none": "{query}: no later positions",
    "future.worked": "the worked example",
    "future.hand": "the second example",
    "kind": "error code",
    "offending": "what is wrong",
    "row_sum_deviation": "largest deviation of a row sum from 1",
    "gradcheck.detail": "max |analytic − numeric| {error}",
    "gradcheck": "gradient check by central differences",
    "coordinates": "coordinates checked (Q+K+V)",
    "step": "step",
    "tolerance": "tolerance",
    "closed_form": "largest difference between the engine and the formulas",
    "replay": "second run",
    "unscaled_weight": "weight of the first position of {scores} without the scale",
    "scaled_weight": "weight of the first position of {scores} with the scale at d_k = {key_width}",
    "section.inputs": "The head's inputs: Q, K and V",
    "section.scores": "Scores: every query against every key",
    "section.scaled": "Scaled scores",
    "section.softmax": "Softmax along each query row",
    "section.mixture": "Mixing values: weighted terms and the output",
    "section.backward": "Backward pass (Ō = I, L = ⟨O, Ō⟩)",
    "section.shapes": "Shapes and independent batch elements",
    "section.single": "A single token: nothing to compare with",
    "section.properties": "Properties of the head",
    "section.visibility": "The visibility boundary",
    "section.rejected": "Rejected inputs",
    "section.checks": "Numeric checks",
    "section.scale_example": "The scale example",
    "section.history": "History: where queries and keys come from",
    "section.hand_inputs": "The second example, to compute by hand: Q, K, V",
    "section.hand_scores": "The second example: scores QKᵀ and S = QKᵀ/√d_k",
    "section.hand_weights": "The second example: softmax along rows, step by step",
    "section.hand_output": "The second example: mixing values, O = AV",
    "hand.exponentials": "exponentials",
    "hand.exp_sum": "their sum",
    "role.query": "queries: a row per position, what that position looks for",
    "role.key": "keys: a row per position, by what that position is found",
    "role.value": "values: a row per position, what it gives to the mix",
    "axis.key": "keys",
    "axis.batch": "batch (B)",
    "axis.tokens": "tokens (T)",
    "axis.width": "width",
    "gradcheck.passed": "passed",
    "gradcheck.failed": "FAILED",
    "replay.bitwise": "bitwise identical",
    "replay.differs": "DIFFERS",
    "history.recurrent-fixed-context": "Fixed recurrent context: the encoder squeezes the whole source sentence into "
        "one vector of a fixed length, and at every step the decoder sees only that.",
    "history.additive-encoder-decoder-alignment": "Additive encoder–decoder alignment: at every step the decoder sets "
        "the weights of the encoder annotations itself and receives their weighted sum.",
    "history.scaled-dot-product-self-attention": "Scaled dot-product self-attention: in one layer the queries and "
        "keys of one sequence are compared, all with all.",
    "history.encoder_decoder": "alignment: queries are decoder states, keys are encoder annotations",
    "history.self": "self-attention: queries and keys are positions of one sequence",
    "history.pairs.alignment": "encoder–decoder alignment: query → key",
    "history.pairs.self": "self-attention: query → key",
    "composition.read": "the same from left to right: transpose K → matmul → multiply by 1/√d_k → log_softmax over "
        "the keys → exp → matmul with V",
    "gradient.engine": "engine",
    "gradient.closed": "formulas",
    "gradient.not_run": "Q, K or V has no gradient yet: run the cell with O.backward(O_bar) first.",
    "gradient.numeric": "differences",
    "gradient.verdict": "check on {count} coordinates (step {step}, tolerance {tolerance})",
    "sums.rows": "row sums of A",
    "sums.columns": "column sums of A",
    "figure.axis.query_rows": "query positions (rows)",
    "figure.axis.key_rows": "key positions (rows)",
    "figure.axis.value_rows": "value positions (rows)",
    "figure.axis.key_columns": "key positions (columns)",
    "figure.axis.features": "features (columns)",
    "figure.axis.value_features": "value features (columns)",
    "figure.raw": "QKᵀ: dot products",
    "figure.scaled": "S = QKᵀ/√d_k: scaled scores",
    "figure.weights": "A = softmax(S) along rows",
    "figure.output": "O = AV: mixtures of values",
    "figure.exponentials": "e^S: the softmax's numerators",
    "figure.row_sums": "row sums of A: Σ_j A_ij",
    "figure.column_sums": "column sums of A: Σ_i A_ij",
    "figure.axis.sum": "sum",
    "figure.axis.query_columns": "query positions (columns)",
    "fold.other_inputs": "This fold holds the answer to “{title}” for the chapter's inputs, but the cells above gave "
                         "other numbers: the inputs or one of the steps were changed. So no numbers are shown here. "
                         "To check your answer, put the lines back as the chapter has them and run the cells again "
                         "from the inputs cell.",
    "figure.grad_output": "Ō = ∂L/∂O: the incoming gradient",
    "figure.grad_value": "V̄ = ∂L/∂V: the values' gradient",
    "figure.grad_weights": "Ā = ∂L/∂A: the weights' gradient",
    "figure.grad_scores": "S̄ = ∂L/∂S: the scaled scores' gradient",
    "figure.grad_query": "Q̄ = ∂L/∂Q: the queries' gradient",
    "figure.grad_key": "K̄ = ∂L/∂K: the keys' gradient",
    "show.matrix": "a matrix of shape {shape}",
    "show.none": "There is nothing to show: this is None. So is .grad before the backward pass, or on a tensor "
                 "computed from others (only inputs keep a gradient, and tensors on which retain_grad() was called).",
    "show.not_a_matrix": "show draws matrices: a vector, a matrix or a batch of matrices (shape [B, T, d]) with no "
                         "empty axis; this one has shape {shape}.",
    "show.unknown_role": "show has no role '{role}'. The roles: {known}.",
    "show.role_alone": "A role ('{role}') comes right after the tensor it names: show(A, \"weights\").",
    "trace.title": "Trace: how every row goes from scores to output",
    "trace.legend": "A block's role shows in its frame style and its caption, so no colour is needed to read it.",
    "trace.folded": "Each section is folded: open the one you want to check.",
    "trace.raw": "each cell is a dot product q_i · k_j",
    "trace.scaled": "the same scores times 1/√d_k",
    "trace.weights_of": "weights of row {query}",
    "error.input-rank": "Three axes are needed: batch, tokens, features.",
    "error.batch-mismatch": "Queries, keys and values must share one batch size.",
    "error.token-mismatch": "Queries, keys and values must describe the same number of tokens.",
    "error.empty-token-axis": "With no key position at all there is nothing to normalize a row over.",
    "error.query-key-width-mismatch": "A dot product needs equal widths: queries and keys must share d_k.",
    "error.empty-feature-width": "A feature width cannot be zero.",
    "error.non-finite-input": "Only finite numbers are accepted; NaN and ±∞ are rejected.",
    "error.stage-failure": "The inputs are finite, but at one forward stage the numbers left float64's range.",
    "refusal.input-rank": "the {operand} have rank {rank}",
    "refusal.batch-mismatch": "batch size {query} for the queries, {key} for the keys, {value} for the values",
    "refusal.token-mismatch": "{query} tokens in the queries, {key} in the keys, {value} in the values",
    "refusal.empty-token-axis": "the inputs have {tokens} tokens",
    "refusal.query-key-width-mismatch": "d_k is {query} for the queries, {key} for the keys",
    "refusal.empty-feature-width": "the {operand} have feature width {width}",
    "refusal.non-finite-input": "entry {index} of the {operand} is {value}",
    "refusal.stage-failure": "computing {stage} failed",
    "refusal.operand.query": "queries",
    "refusal.operand.key": "keys",
    "refusal.operand.value": "values",
    "widget.scale.slider": "score factor",
    "widget.scale.to_default": "1/√d_k ≈ {value}",
    "widget.scale.to_one": "1 (no scale)",
    "widget.scale.title": "A = softmax({factor} · QKᵀ) along rows",
    "widget.scale.pair": "example [1, 0]: weight of the first position at factor {factor}",
    "widget.scale.repr": "Widget: score factor from 0 to 2 (needs a running kernel)",
    "widget.width.slider": "d_k",
    "widget.width.row_title": "The first query's row of weights at d_k = {key_width}, largest first",
    "widget.width.row_weight": "weight",
    "widget.width.rank": "the key's place in the row",
    "widget.width.var_title": "Variance of the dot products q·k",
    "widget.width.variance": "variance (log scale)",
    "widget.width.raw": "unscaled",
    "widget.width.scaled": "divided by √d_k",
    "widget.width.max_title": "Mean largest weight in a row ({tokens} keys)",
    "widget.width.max_weight": "largest weight",
    "widget.width.entropy_title": "Mean row entropy (uniform: {uniform})",
    "widget.width.entropy": "entropy, nats",
    "widget.width.jacobian_title": "Mean norm of the softmax Jacobian",
    "widget.width.jacobian": "‖diag(a) − aaᵀ‖ (Frobenius norm)",
    "widget.width.numbers": "d_k = {key_width}:\n"
        "  variance of q·k: {raw} unscaled, {scaled} after dividing by √d_k;\n"
        "  mean largest weight in a row: {max_raw} unscaled, {max_scaled} scaled;\n"
        "  mean entropy: {entropy_raw} and {entropy_scaled} nats (a uniform row: {uniform});\n"
        "  mean norm of the softmax Jacobian ‖diag(a) − aaᵀ‖ (Frobenius): {jacobian_raw} unscaled, "
        "{jacobian_scaled} scaled.",
    "widget.width.repr": "Widget: d_k from 1 to 1024 (needs a running kernel)",
    "widget.editor.Q": "Q — queries",
    "widget.editor.K": "K — keys",
    "widget.editor.V": "V — values",
    "widget.editor.blank": "empty: type a number",
    "widget.editor.unreadable": "not a number: “{typed}”; type a number such as 1.5 or -2",
    "widget.editor.kept": "Not every field could be read (see the notes under them); below is still the "
        "computation from the last inputs that could all be read.",
    "widget.editor.changed": "Numbers below that changed: {count}; they are in bold and underlined.",
    "widget.editor.unchanged": "None of the numbers below changed.",
    "widget.editor.reset": "Reset",
    "widget.editor.repr": "Widget: editable Q, K, V (needs a running kernel)",
    "mis.rows-swapped": "The answer's rows are out of place: row i belongs to query q_i, so check you did not take "
        "another row's answer.",
    "mis.scaled-too-early": "These are already the scaled scores S: you divided by √d_k. The question asks "
        "for the raw dot products QKᵀ before scaling.",
    "mis.features-for-positions": "The wrong axes were multiplied: QᵀK pairs feature columns, but positions must "
        "be paired — row q_i with row k_j, that is Q·Kᵀ.",
    "mis.query-with-query": "That compares queries with queries (or keys with keys). Each score multiplies a "
        "query row by a key row: S_ij = q_i · k_j.",
    "mis.missing-scale": "That is softmax of the raw scores QKᵀ with the factor 1/√d_k forgotten: divide "
        "the scores by √d_k first, then normalize.",
    "mis.columns-normalized": "You normalized columns, not rows: softmax for a query runs along its row over "
        "the key positions, and it is the row that sums to 1.",
    "mis.wrong-row": "That is another query's row. The weights of query q_0 are asked for.",
    "mis.not-normalized": "Those are still scores, not weights: softmax turns a row of scores into "
        "non-negative weights that sum to 1.",
    "mis.weights-for-scores": "Those are already the weights A — the scores after softmax. The scores themselves are "
        "asked for: the dot products q_i · k_j, before scaling and normalizing.",
    "mis.weights-for-output": "Those are the weights A, not the output: the output O = A·V mixes the value rows with "
        "these weights.",
    "mis.output-for-weights": "That is the output O = A·V, but the weights A are asked for: not the mixture, but the "
        "shares in which the values are mixed.",
    "mis.weights-transposed": "That is Aᵀ: row i here is column i of the weight matrix. Query q_i's weights are row i "
        "of A, and it is the rows that sum to 1.",
    "mis.other-example": "That is the answer for the chapter's other example. Compute from this exercise's Q, K and V.",
    "mis.scale-by-dk": "The scores are divided by d_k, but the head divides by √d_k: the root keeps the dot product's "
        "variance near one, while dividing by d_k would shrink it to 1/d_k.",
    "mis.scale-by-root-t": "The scores are divided by √T, the root of the number of tokens. The scale follows the "
        "width of the queries and keys: divide by √d_k.",
    "mis.scale-by-root-dv": "The scores are divided by √d_v, the root of the value width. The scale follows the width "
        "of the queries and keys: √d_k.",
    "mis.scale-after-softmax": "The factor 1/√d_k was applied after the softmax, to the weights, and the row no "
        "longer sums to 1. It is the scores that are divided, before the softmax.",
    "mis.no-exponential": "The scores are divided by their sum with no exponential: such \"weights\" can be negative "
        "or above one. Softmax takes e^s first, then divides by the sum.",
    "mis.exponentials-not-normalized": "The exponentials are taken but not divided by their sum, and a row of weights "
        "must sum to 1: divide each e^s by the sum of its row's exponentials.",
    "mis.hard-attention": "All the weight went to the largest score. Softmax never gives exactly 0 or exactly 1: "
        "every key gets its share e^s / Σ e^s, even the one with the lowest score.",
    "mis.uniform-weights": "Equal weights — as equal scores would give. Here the row's scores differ, and softmax "
        "gives the larger score the larger weight.",
    "mis.row-reversed": "The row of weights is reversed: the first weight belongs to key k_0, the second to k_1. The "
        "key with the larger score gets the larger weight.",
    "mis.shape-axes-swapped": "The axes are out of order: the output's shape runs [B, T, d_v] — batch, tokens, value "
        "width.",
    "mis.batch-axis-dropped": "The batch axis is missing: the output has three axes, [B, T, d_v], the first being the "
        "batch size B.",
    "mis.lone-token-attends-to-nothing": "A lone token does have something to compare with — itself: its only key "
        "gets weight 1, and the output is its value.",
    "mis.equal-keys-go-to-first": "Equal scores do not pick the first key: softmax of equal numbers splits the weight "
        "evenly.",
    "mis.row-sum": "Your weights sum to {total}, but a row of weights after softmax always sums to 1.",
    "mis.weights-shape-for-output": "That is the shape of the weight matrix A: [B, T, T]. The output O = AV takes "
        "its last axis from the values: [B, T, d_v].",
    "mis.dk-for-dv": "That uses the query and key width d_k. The output mixes rows of V, so its width "
        "is the value width d_v.",
    "mis.single-weight-not-one": "A single token's weight row has one key, and softmax makes a row sum to 1: that "
        "weight is 1 whatever the score.",
    "mis.scale-on-values": "The weight is right, but the factor 1/√d_k acts on the scores, not on the "
        "values: the output is an unscaled mix of rows of V.",
    "mis.single-output": "The weight is right. The output is a weighted sum of value rows, and here there "
        "is one row with weight 1.",
    "mis.identical-keys-unequal": "Identical keys give a query identical scores, and softmax of equal numbers is "
        "uniform: no position gets a larger weight.",
    "mis.transposed-scores": "The scores are transposed here: that is KQᵀ (or weights taken from it), where row i "
        "belongs to key k_i. In QKᵀ row i is query q_i and column j is key k_j: S_ij = q_i · k_j. In this example "
        "QKᵀ is not symmetric, so the difference shows.",
    "mis.mixed-keys": "You mixed the key rows: that is A·K. The weights mix the values: o_i = Σ_j A_ij v_j, so the "
        "output is A·V, d_v wide.",
    "mis.transposed-weights": "That uses Aᵀ: you built row o_i from column i of A. Query q_i's output mixes the "
        "values with the weights of its own row A_i,: — O = A·V, not Aᵀ·V.",
    "mis.temperature-swapped": "The limits are swapped. As τ → 0 the numbers s/τ spread apart and the largest "
        "score takes all the weight; as τ → ∞ every s/τ goes to 0 and the weights even out.",
    "mis.weights-not-transposed": "That is AŌ: A was not transposed. Row j of V̄ collects the weights that every "
        "query gave to position j, which is column j of A. So V̄ = AᵀŌ.",
    "mis.value-gradient-is-weights-gradient": "That is Ā = ŌVᵀ, the gradient of the weights, not of the values. The "
        "gradient reaches the values through the weights: V̄ = AᵀŌ.",
    "mis.output-for-gradient": "That is the forward pass's output O = AV. The backward pass multiplies other things: "
        "the upstream gradient Ō with the weights A or with the values V.",
    "mis.values-not-transposed": "That is ŌV: V was not transposed. Cell Ā_ij is the dot product of row ō_i with row "
        "v_j, so Ā = ŌVᵀ.",
    "mis.weights-gradient-is-value-gradient": "That is V̄ = AᵀŌ, the gradient of the values. The gradient reaches the "
        "weights through the values: Ā = ŌVᵀ.",
    "mis.softmax-backward-skipped": "That is Ā, the gradient of the weights, before the softmax. To reach the scores "
        "it has to pass through the softmax's derivative: S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
    "mis.row-term-missing": "You multiplied A and Ā entry by entry but did not subtract the row's number ⟨a, ā⟩ from "
        "Ā. Without it the rows of S̄ do not sum to 0, and they must: adding one number to every score of a row "
        "leaves the weights unchanged.",
    "mis.row-term-over-queries": "You subtracted a column's sum, not a row's. Every row has its own softmax, and the "
        "number subtracted is ⟨a_i, ā_i⟩ of that same row i, a sum over the keys.",
    "mis.weight-factor-missing": "You subtracted ⟨a, ā⟩ but did not multiply the difference by the weights. The "
        "softmax's derivative ∂a_j/∂s_m = a_j(δ_jm − a_m) starts with a_j, so S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
    "mis.raw-score-gradient": "You multiplied by 1/√d_k: that gives the gradient of the scores QKᵀ before the scale. "
        "The question asks for S̄, the gradient of the scaled scores S; the factor 1/√d_k comes in at the next step, "
        "in Q̄ and K̄.",
    "mis.gradient-rows-not-zero": "The rows of your S̄ sum to {sums}, but every row of S̄ sums to 0: adding one "
        "number to a whole row of scores leaves the weights unchanged, so the gradient along that direction is zero.",
    "mis.mask-keeps-future": "The mask is upside down: you left query q_i the keys j ≥ i, the future. A causal "
        "mask keeps j ≤ i — the past and the position itself — and hides the later keys.",
    "mis.mask-hides-self": "You hid the position's own key too, but a causal mask keeps j ≤ i, including j = i. "
        "So q_0 keeps exactly one key, k_0, with weight 1.",
    "mis.mask-not-renormalized": "You zeroed the hidden weights of the finished A, and the rows no longer sum to "
        "1. The mask acts before softmax: the hidden keys' scores become −∞, and softmax normalizes the row over "
        "the keys that remain.",
    "mis.mask-ignored": "Those are the unmasked weights: every row still sees all the keys. A causal mask hides the "
        "keys j > i from q_i.",
    "mis.dk-is-dmodel": "That is the whole model's width. The heads share d_model: each has d_k = d_model / h, and "
        "the scale uses that width.",
    "mis.heads-multiply-width": "Heads do not multiply the width; they split d_model into h parts: d_k = "
        "d_model / h.",
    "mis.scale-without-root": "d_k is right, but the scale is 1/√d_k, not 1/d_k: dividing by the root keeps the "
        "variance of the dot products near 1.",
    "ex.first-look.prompt": "Before any computation: to which value row, v_0 or v_1, will each query give more "
        "weight? Answer with two indices: one for q_0 and one for q_1.",
    "ex.first-look.form": "two value-row indices, one per query, as [i, j]",
    "ex.first-look.form_hint": "Exactly two indices are needed, each 0 or 1: the first for q_0, the second for q_1.",
    "ex.first-look.wrong": "For each query compare its dot products with k_0 and k_1: the value of the "
        "position whose key gave the larger product gets the larger weight.",
    "ex.first-look.explain": "q_0's product with k_1 is larger than with k_0, and q_1's the other way round, so q_0 "
        "gives the larger weight to v_1 and q_1 to v_0. You will compute the products themselves in the next "
        "question.",
    "ex.scores.prompt": "Compute the worked example's whole matrix QKᵀ: four dot products. Answer with a 2×2 matrix "
        "[[S_00, S_01], [S_10, S_11]].",
    "ex.scores.form": "a 2×2 matrix as [[a, b], [c, d]]",
    "ex.scores.form_hint": "Expected: a {shape} matrix without the batch axis, one row per query and one "
        "column per key.",
    "ex.scores.wrong": "Entry (i, j) is the dot product of row q_i with row k_j: the sum of the products "
        "of matching coordinates.",
    "ex.scores.explain": "QKᵀ = {answer}: entry (i, j) is q_i · k_j.",
    "ex.weights.prompt": "What is the weight row A_0 of query q_0 after scaling and softmax? Three "
        "decimals are enough.",
    "ex.weights.form": "a row of two weights as [a, b]",
    "ex.weights.form_hint": "A row of {count} weights is needed.",
    "ex.weights.wrong": "Divide q_0's row of scores by √d_k, exponentiate, and divide each by their sum.",
    "ex.weights.explain": "S_0 = {scaled_row}; softmax of that row gives {answer}, summing to {row_sum}.",
    "ex.scores-by-hand.prompt": "An example to compute by hand: Q = {hand_query}, K = {hand_key}, d_k = {key_width}. "
        "Compute QKᵀ: the dot product q_i · k_j for every pair of a query and a key. Answer with a {size} matrix: a "
        "row per query, a column per key.",
    "ex.scores-by-hand.form": "a {size} matrix as {layout}",
    "ex.scores-by-hand.form_hint": "A {size} matrix is needed: a row per query, a column per key.",
    "ex.scores-by-hand.wrong": "Entry (i, j) is the dot product of row q_i with row k_j: multiply the coordinates in "
        "pairs and add the products.",
    "ex.scores-by-hand.explain": "QKᵀ = {answer}. Entry (i, j) is q_i · k_j, for example {example}. The matrix "
        "is not symmetric: KQᵀ is its transpose, and a different answer.",
    "ex.weights-by-hand.prompt": "Now this example's weights (Q = {hand_query}, K = {hand_key}): A = "
        "softmax(QKᵀ/√d_k) along rows, d_k = {key_width}. The only constant you need is e ≈ 2.718. Answer with a "
        "{size} matrix, a row per query; two decimals are enough (±0.01 is accepted).",
    "ex.weights-by-hand.form": "a {size} weight matrix as {layout}",
    "ex.weights-by-hand.form_hint": "A {size} weight matrix is needed: a row per query, a column per key.",
    "ex.weights-by-hand.wrong": "Divide each score by √d_k, exponentiate, and divide each exponential of a row by "
        "their sum.",
    "ex.weights-by-hand.explain": "S = QKᵀ/√d_k = {scaled} (√d_k = {root}). The exponentials of row q_0 are {exps}, "
        "summing to {total}, so A_0 = {first}. All of A is {answer}: the largest weight is {largest}, no more than "
        "0.9 — the values really are mixed.",
    "ex.output-by-hand.prompt": "And this example's output (Q = {hand_query}, K = {hand_key}, d_k = {key_width}): O = "
        "AV with V = {hand_value}, A being its weights. Answer with a {value_size} matrix, a row per query; two "
        "decimals are enough.",
    "ex.output-by-hand.form": "a {value_size} matrix as {value_layout}",
    "ex.output-by-hand.form_hint": "A {size} matrix is needed: a row per query, a column per value feature.",
    "ex.output-by-hand.wrong": "Row o_i is the sum of the value rows v_j weighted by row A_i,: — o_i = "
        "Σ_j A_ij v_j.",
    "ex.output-by-hand.explain": "o_0 = {terms} = {first}; the other rows likewise. O = {answer}.",
    "ex.row-normalization.prompt": "Every row of A sums to 1. What can be said about the sums of its columns?",
    "ex.row-normalization.a": "Every column sums to 1 as well: softmax normalizes the whole weight matrix, along both "
        "axes.",
    "ex.row-normalization.b": "Every column sums to 1 when QKᵀ is symmetric, as in the worked example.",
    "ex.row-normalization.c": "A column may sum to any number from 0 to T; all the columns together sum to T, just as "
        "all the rows do.",
    "ex.row-normalization.d": "Every column sums to 1/√d_k: the scale divides every sum.",
    "ex.row-normalization.right": "Column j gathers the weights that different queries gave to key k_j, and nothing "
        "normalizes it. But the sum of all the entries of A is one number however you add them up: T rows of 1.",
    "ex.row-normalization.why_a": "Softmax normalizes only a row: the denominator of A_ij adds up the exponentials of "
        "one row. A column gathers the weights of different queries, and its sum can be anything from 0 to T: "
        "{column_sums} in the example.",
    "ex.row-normalization.why_b": "Symmetric scores do not make symmetric weights: each row is divided by its own "
        "sum. In the worked example QKᵀ is symmetric, yet the column sums of A are {column_sums}.",
    "ex.row-normalization.why_d": "The factor 1/√d_k comes before the softmax and only shrinks the scores; it does "
        "not act on the sums of the weights. The column sums in the example are {column_sums}.",
    "ex.row-normalization.explain": "Row i is query q_i and column j is key k_j; softmax normalizes each row on its "
        "own, and nothing ties the columns. Row sums: {row_sums}; column sums: {column_sums}, together "
        "{column_total}, as many as there are queries.",
    "ex.output-shape.prompt": "What shape is the output O when Q, K ∈ ℝ^({query_shape}) and V ∈ ℝ^({value_shape})?",
    "ex.output-shape.form": "three whole numbers [B, T, width]",
    "ex.output-shape.form_hint": "A shape of three whole numbers is needed: [batch, tokens, width].",
    "ex.output-shape.wrong": "The output keeps the batch and query axes and takes its last axis from the values.",
    "ex.output-shape.explain": "O = AV: A has shape {weights_shape} and V {value_shape}, so O is {output_shape}.",
    "ex.why-root-dk.prompt": "Why are the scores divided by √d_k and not by d_k?",
    "ex.why-root-dk.a": "It makes no difference: softmax does not depend on the scale of the scores, only on "
        "their order, so any divisor gives the same weights.",
    "ex.why-root-dk.b": "Divided by d_k, the variance of the scores would grow with d_k, so the wider the vectors, "
        "the sharper the rows would get.",
    "ex.why-root-dk.c": "Dividing by √d_k brings q and k to unit length, so the score becomes the cosine of the angle "
        "between them; dividing by d_k would not.",
    "ex.why-root-dk.d": "Under Vaswani et al.'s assumptions Var(q·k) = d_k: dividing by √d_k keeps the variance near "
        "1 at every width, while dividing by d_k shrinks it to 1/d_k, and at large widths the rows turn almost "
        "uniform.",
    "ex.why-root-dk.right": "Divided by c, the variance of q·k/c is d_k/c²: 1 at every width for c = √d_k, and "
        "1/d_k for c = d_k, which would pull the scores towards 0.",
    "ex.why-root-dk.why_a": "Softmax is unchanged when a constant is added to a row, not when the row is "
        "multiplied: the row [1, 0] gives the weights {unscaled}, the same row times 1/√{scale_width} gives "
        "{scaled}.",
    "ex.why-root-dk.why_b": "The opposite: the variance of q·k/d_k is 1/d_k, so the rows would get ever flatter as "
        "d_k grows. On random vectors at d_k = {key_width} the mean largest weight in a row of {tokens} keys "
        "would be {max_width}, close to a uniform row's {uniform}.",
    "ex.why-root-dk.why_c": "A cosine divides by ‖q‖·‖k‖, which differs for every pair. √d_k is one number for the "
        "whole head: it keeps the scores' average variance near 1; it does not set the vectors' length.",
    "ex.why-root-dk.explain": "Var(q·k/c) = d_k/c²: for c = √d_k that is 1, for c = d_k it is 1/d_k. On random "
        "vectors at d_k = {key_width} ({tokens} keys to a row): divided by √d_k, the scores have variance "
        "{variance_root} and the mean largest weight in a row is {max_root}; divided by d_k, {variance_width} "
        "and {max_width}, close to a uniform row's {uniform}. This is an argument under assumptions, not a "
        "proof of optimality.",
    "ex.recurrent-vs-self.prompt": "Compare Bahdanau's alignment with the head you computed in 27.1–27.4. What is the "
        "main difference?",
    "ex.recurrent-vs-self.a": "With self-attention the work no longer depends on the length: all the scores come out "
        "of one product, however many tokens there are.",
    "ex.recurrent-vs-self.b": "Alignment builds a new context at each step of the decoder, one step at a time; a "
        "self-attention head relates all positions of one sequence to each other at once, in one layer.",
    "ex.recurrent-vs-self.c": "Self-attention parallelizes autoregressive generation: since all positions are "
        "computed at once, all tokens of the answer appear at once.",
    "ex.recurrent-vs-self.d": "There is no difference: the additive attention of Bahdanau, Cho and Bengio "
        "already used queries, keys, values and scaled dot products.",
    "ex.recurrent-vs-self.right": "The difference is in the model's structure: a context per decoder step versus "
        "a matrix of all position pairs in one layer.",
    "ex.recurrent-vs-self.why_a": "The score matrix is built at once, but its T×T size grows with the length: the "
        "work is not constant.",
    "ex.recurrent-vs-self.why_c": "One layer's scores are computed in a batch, but generation stays "
        "autoregressive: the next token depends on the previous ones.",
    "ex.recurrent-vs-self.why_d": "That carries today's ideas into the past. In Bahdanau, Cho and Bengio's model a "
        "small learned network computes each score from the decoder state and an annotation; there are no queries, "
        "keys and values and no division by √d_k, and the name “additive” was given to that score later.",
    "ex.recurrent-vs-self.explain": "Alignment scores {encoder_pairs} pairs of “decoder state — encoder annotation”; "
        "self-attention scores {self_pairs} pairs of positions of one sequence. That makes neither the work constant "
        "nor the production of text parallel.",
    "ex.single-token.prompt": "A sequence has one token, whose value is {value}. What are its attention weight "
        "and its output? Answer with the weight and the output: [w, [o_0, o_1]] or [w, "
        "o_0, o_1].",
    "ex.single-token.form": "the weight and the output as [w, [o_0, o_1]] or [w, o_0, o_1]",
    "ex.single-token.form_hint": "Three numbers are needed: the weight and the two output coordinates.",
    "ex.single-token.explain": "The weight row has one key, so A = {weights}, and the output is the value "
        "itself: O = {output}. The query and key gradients are zero: Q̄ = {grad_q}, K̄ = "
        "{grad_k}.",
    "ex.permutation.prompt": "Swap two token positions, the same way in Q, K and V. What happens to the output?",
    "ex.permutation.a": "The output does not change in any row.",
    "ex.permutation.b": "Different numbers come out: the head knows the order of positions.",
    "ex.permutation.c": "Only the columns of A are permuted; the output rows stay where they were.",
    "ex.permutation.d": "The output rows are permuted the same way: each row follows its position.",
    "ex.permutation.right": "The head does not know the order of positions: an output row moves with its query.",
    "ex.permutation.why_a": "An output row belongs to its query; when the query moves, its output row moves with it.",
    "ex.permutation.why_b": "This head has no information about position: the scores depend only on what the rows "
        "contain. The order of positions, like the mask, is brought into a model separately.",
    "ex.permutation.why_c": "Both the rows of A (queries) and its columns (keys) are permuted, so the output "
        "rows are permuted too.",
    "ex.permutation.explain": "After permuting {order}, the output matched the permuted original output with a "
        "difference {difference}. The head knows nothing of the order of positions, so information about order, like "
        "the mask, has to be added separately.",
    "ex.identical-keys.prompt": "All key rows are identical: K = {key_rows}. What will the weights in any query's row "
        "be?",
    "ex.identical-keys.form": "a row of weights as {layout}",
    "ex.identical-keys.form_hint": "A row of {tokens} weights (or the whole {size} matrix) is needed.",
    "ex.identical-keys.explain": "All scores in the row are equal, and softmax gives the uniform row {weights}.",
    "ex.future-access.prompt": "A decoder is trained to predict the next token. Which kind of access to other "
        "positions would give the head the answer in advance?",
    "ex.future-access.a": "The query at position i uses keys and values at positions j > i — later target tokens.",
    "ex.future-access.b": "The query at position i uses the keys of earlier positions j < i.",
    "ex.future-access.c": "The query at position i uses its own key j = i.",
    "ex.future-access.d": "There is no leak: this head already sees only past positions.",
    "ex.future-access.right": "Without a mask a query sees later positions; in autoregressive training that "
        "gives the answer away.",
    "ex.future-access.why_b": "Earlier positions are already known to the model when it generates — using them "
        "is fine.",
    "ex.future-access.why_c": "Its own position is known too: the mask of chapter 28 does not hide it.",
    "ex.future-access.why_d": "This head has no mask: in the example query q_0 gives the later position k_1 a "
        "weight of {future_weight}. Chapter 28 adds the mask.",
    "ex.future-access.explain": "Without a mask every query sees every key: in the example q_0 gives the future "
        "position k_1 a weight of {future_weight}. In autoregressive training the model "
        "would peek at the answer.",
    "ex.temperature-limits.prompt": "A temperature τ divides the scores before softmax: weights = softmax(s/τ). "
        "What does the row of weights for the scores s = {temperature_scores} become as τ → 0 and as τ → ∞? "
        "Answer with two rows: [[weights as τ → 0], [weights as τ → ∞]]; two decimals are enough.",
    "ex.temperature-limits.form": "two rows of three weights: [[a, b, c], [d, e, f]]",
    "ex.temperature-limits.form_hint": "Two rows of three weights are needed: the first as τ → 0, the second as "
        "τ → ∞.",
    "ex.temperature-limits.wrong": "Picture s/τ: with a small τ the differences between the scores are huge, with "
        "a large one they vanish. What does softmax do in each case?",
    "ex.temperature-limits.explain": "As τ → 0 the differences s/τ grow without bound and the largest score takes all "
        "the weight: {cold}. As τ → ∞ every s/τ → 0 and softmax is uniform: {hot} — all weights nearly equal, the "
        "difference in the sixth decimal coming from τ being finite. The engine computed them at τ = 10⁻⁶ and τ = "
        "10⁶.",
    "ex.row-shift.prompt": "The same number c = {shift} is added to every scaled score in row q_0 of the second "
        "example. What happens to the row of weights A_0?",
    "ex.row-shift.a": "The row gets sharper: the key with the largest score gets even more weight.",
    "ex.row-shift.b": "Each weight is multiplied by e^c, and the row no longer sums to 1.",
    "ex.row-shift.c": "Nothing changes: the factor e^c appears in both the numerator and the denominator of "
        "softmax and cancels.",
    "ex.row-shift.d": "The weights even out: next to a large c the differences between the scores are lost.",
    "ex.row-shift.right": "Softmax depends only on the differences between the scores within a row: "
        "e^(s_j + c) / Σ_r e^(s_r + c) = e^(s_j) / Σ_r e^(s_r).",
    "ex.row-shift.why_a": "Sharpness depends on the differences between the scores, and a shift leaves them alone: "
        "the row {row} and the same row shifted by {shift} give the same weights {weights}.",
    "ex.row-shift.why_b": "The numerator and the denominator are both multiplied by e^c, so the factor cancels and "
        "the row still sums to 1.",
    "ex.row-shift.why_d": "The differences between the scores did not change, so neither did the weights: "
        "{weights} before the shift and {shifted} after.",
    "ex.row-shift.explain": "Row q_0: scores {row}, weights {weights}; after adding {shift} the weights are "
        "{shifted}, a difference of {difference}. That is why softmax implementations subtract a row's maximum: "
        "the answer stays the same and nothing overflows.",
    "ex.one-hot-gradient.prompt": "Multiply the worked example's Q by {factor}: in every row of A all the weight goes "
        "to one key (to six decimals), and the gradient Q̄ (with Ō = I) becomes nearly zero. Why is Q̄ ≈ 0?",
    "ex.one-hot-gradient.a": "No gradient reaches the values: V̄ is zero, so there is nothing to pass on to the "
        "queries.",
    "ex.one-hot-gradient.b": "The head picks a key with argmax, which has no derivative: Q̄ is exactly zero.",
    "ex.one-hot-gradient.c": "The factor 1/√d_k wipes out the gradient when the scores are large.",
    "ex.one-hot-gradient.d": "Softmax is saturated: for a row with all its weight on one key the softmax's derivative "
        "is almost zero, and almost nothing reaches the scores, and with them Q.",
    "ex.one-hot-gradient.right": "The gradient through softmax is proportional to A_ij(δ_jr − A_ir); for a row with "
        "all its weight on one key that is nearly zero, and almost nothing reaches the queries.",
    "ex.one-hot-gradient.why_a": "V̄ = AᵀŌ is not zero: here V̄ = {grad_v}. It is the path through softmax that "
        "vanishes, not the one through the values.",
    "ex.one-hot-gradient.why_b": "The head never calls argmax: it computes softmax, which has a derivative "
        "everywhere. Q̄ = {grad_q} only to six decimals: it is tiny, but not exactly zero.",
    "ex.one-hot-gradient.why_c": "The scale 1/√d_k is a constant factor: it does not depend on how large the "
        "scores are and does not wipe out a gradient by itself. A saturated softmax does: A = {weights}.",
    "ex.one-hot-gradient.explain": "With Q × {factor} the weights are A = {weights}, Q̄ = {grad_q}, and V̄ = "
        "{grad_v}. A saturated softmax passes almost no gradient to the scores — one reason to divide the scores "
        "by √d_k.",
    "ex.causal-rows.prompt": "Chapter 28 brings a causal mask: with T = {tokens}, query q_i sees only the keys j ≤ i "
        "(the others' scores become −∞ before softmax). Under this mask, what does the weight matrix A of {example} "
        "become? Answer with a {size} matrix; two decimals are enough.",
    "ex.causal-rows.second": "the second example",
    "ex.causal-rows.given": "the example with Q = {hand_query}, K = {hand_key}, d_k = {key_width}",
    "ex.causal-rows.form": "a {size} weight matrix as {layout}",
    "ex.causal-rows.form_hint": "A {size} weight matrix is needed: a row per query, a column per key; hidden keys get "
        "weight 0.",
    "ex.causal-rows.wrong": "In each row keep the keys j ≤ i, take softmax over them alone, and give the hidden "
        "keys weight 0.",
    "ex.causal-rows.explain": "Row q_i takes the softmax over the keys k_0 … k_i only and gives the hidden keys "
        "weight 0: {rows}. The last row sees every key, as without a mask. A = {answer}.",
    "ex.head-width.prompt": "A model of width d_model = {model_width} splits attention over h = {heads} heads. "
        "What is one head's width d_k, and its scale 1/√d_k? Answer with [d_k, scale].",
    "ex.head-width.form": "two numbers [d_k, scale]",
    "ex.head-width.form_hint": "Two numbers are needed: the head width d_k and the scale 1/√d_k.",
    "ex.head-width.wrong": "The heads split d_model evenly, and the scale is one over the square root of one "
        "head's width.",
    "ex.head-width.explain": "d_k = d_model / h = {model_width} / {heads} = {key_width}; the scale is "
        "1/√{key_width} = {scale}. The engine, run on one head's slice, reported the same width and scale.",
    "cost.table_title": "B = {batch}, d_k = {key_width}, d_v = {value_width}; multiply-adds and bytes (float64)",
    "cost.forward_backward": "forward+backward",
    "cost.score_bytes": "one [B,T,T]",
    "cost.record_bytes": "record",
    "cost.input_bytes": "Q, K, V",
    "cost.doubling_title": "Each row doubles one quantity, starting from B = {batch}, T = {tokens}, d_k = "
        "{key_width}, d_v = {value_width}; each cell is the growth factor",
    "cost.doubled": "doubled",
    "cost.time_title": "Forward+backward time, ms (B = {batch}, d = {width})",
    "cost.time_axis": "ms (log scale)",
    "cost.quadratic": "∝ T² (through the last point)",
    "cost.memory_title": "numpy's peak memory over forward+backward, MiB",
    "cost.memory_axis": "MiB (log scale)",
    "cost.one_score_matrix": "one [B,T,T] matrix",
    "section.dot_products": "Dot products of each query with every key",
    "section.score_gradient": "Step 3 back: through each row's softmax to the scores, S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā))",
    "backward.row_sum": "sum of the row of S̄",
    "section.gradient_table": "Gradients: the engine, the formulas and central differences",
    "section.output_shape": "Shapes of the weights and the output",
    "section.sums": "Row and column sums of A",
    "section.record": "The record of the forward pass",
    "section.composition": "The primitives the output is built from",
    "section.future": "How much weight each query gives to later positions",
    "section.pairs": "Query → key pairs",
    "terms.computed": "multiplied out",
    "batch": "batch",
    "why": "why",
    "stage.raw-scores": "the raw scores QKᵀ",
    "stage.scaled-scores": "the scaled scores",
    "stage.row-log-softmax": "log_softmax along rows",
    "stage.probabilities": "the attention weights",
    "stage.value-mixture": "the weighted mix of values",
    "section.error": "Why the head refused",
    "widget.scale.jacobian": "norm of the softmax Jacobian ‖diag(a) − aaᵀ‖ for row {query}",
    "section.contributions": "An attention weight and the contribution it actually makes",
    "contributions.weights": "attention weights",
    "contributions.sizes": "norm of the term A_ij·v_j in the output o_i",
    "code.probe.weights": "on a probe where V = [I | 0], so that the output is the weights themselves (T = {tokens}, "
        "d_k = {key_width}, d_v = {value_width}),",
    "code.probe.large": "on a probe with scores up to 800,",
    "code.probe.backward": "on a probe with T = {tokens}, d_k = {key_width}, d_v = {value_width}",
    "ex.write-head.missing-scale": "The scores are not scaled: {probe} your weights come from scores divided by "
        "{found}, that is, by nothing. The head divides them by √d_k = {right}; without it a wide d_k hands nearly "
        "all of a row's weight to one key.",
    "ex.write-head.scale-by-dk": "The scores are divided by d_k: {probe} your weights come from scores divided by "
        "{found} = d_k. The head divides by √d_k = {right}: a dot product's variance grows like d_k, its spread like "
        "√d_k.",
    "ex.write-head.scale-by-root-t": "The scores are divided by √T: {probe} your weights come from scores divided by "
        "{found} = √T (T = {tokens}). The scale follows the width of the queries and keys: the head divides by √d_k = "
        "{right}.",
    "ex.write-head.scale-by-root-dv": "The scores are divided by √d_v: {probe} your weights come from scores divided "
        "by {found} = √d_v (d_v = {value_width}). The scale follows the width of the queries and keys: the head "
        "divides by √d_k = {right}.",
    "ex.write-head.scale-other": "The scores are divided by the wrong number: {probe} your weights come from scores "
        "divided by {found}. The head divides by √d_k = {right}.",
    "ex.write-head.softmax-axis": "The softmax normalizes the wrong axis: {probe} the columns of your weights sum to "
        "1 ({column_sums}), not the rows ({row_sums}). A row of A is one query, whose weights over the keys sum to 1: "
        "normalize the last axis (axis=-1).",
    "ex.write-head.transposed-scores": "The scores are transposed: {probe} your weights are the softmax of the rows "
        "of K Qᵀ, not Q Kᵀ. Row i of the scores is query q_i and column j is key k_j: S = Q Kᵀ / √d_k.",
    "ex.write-head.returns-weights": "The function returns the weights A, not the output O: {probe} it returned an "
        "array of shape {shape}, [B, T, T]. Return the mixture of values A @ v, of shape [B, T, d_v].",
    "ex.write-head.mixed-keys": "The weights mix the keys, not the values: {probe} the output has shape {shape}, the "
        "keys' width d_k rather than the values' d_v. Return A @ v.",
    "ex.write-head.no-exponential": "There is no exponential: {probe} your weights are the scores divided by their "
        "row's sum. Such weights can be negative; softmax takes e^s first, then divides by the row's sum.",
    "ex.write-head.exponentials-not-normalized": "The exponentials are not divided by their sum: {probe} the rows of "
        "your weights sum to {row_sums}, not 1. Divide each e^s by the sum of its row.",
    "ex.write-head.scale-after-softmax": "The factor 1/√d_k is applied after the softmax: {probe} the rows of your "
        "weights sum to {found}, which is 1/√d_k. Divide the scores before the softmax, and the rows of weights sum "
        "to 1.",
    "ex.write-head.hard-attention": "All the weight goes to a row's largest score: {probe} your weights are zeros and "
        "ones. Softmax gives every key its share e^s / Σ e^s and never exactly 0 or 1.",
    "ex.write-head.uniform-weights": "The weights are equal: {probe} every key gets 1/T although the row's scores "
        "differ. The weights come from the scores: softmax(Q Kᵀ / √d_k).",
    "ex.write-head.transposed-weights": "The values are mixed with Aᵀ: {probe} your output is Aᵀ·V. Row o_i takes its "
        "weights from its own row A_i,: — O = A·V.",
    "ex.write-head.batch-leak": "The batch elements see each other's keys: on a batch of two elements with different "
        "keys, the first element's first output row is {together}, while the same element alone gives {alone}. "
        "Compute the scores within each element, q @ k.swapaxes(1, 2), not across the whole batch.",
    "ex.write-head.no-max-shift": "exp overflowed: {probe} your output holds nan or inf where the head's is finite. "
        "Subtract each row's maximum from its scores before exp: the softmax does not change.",
    "ex.write-backward.dv-not-transposed": "dV is computed with A, not Aᵀ: {probe} your dv equals A·Ō. A value v_j "
        "receives gradient from every query that looked at it: dV = Aᵀ·Ō.",
    "ex.write-backward.missing-scale": "{grad} is not divided by √d_k: {probe} your {grad} is the product with S̄ "
        "divided by {found}, that is, by nothing. The factor 1/√d_k sits in S = QKᵀ/√d_k and enters both gradients: "
        "dQ = S̄·K/√d_k, dK = S̄ᵀ·Q/√d_k (√d_k = {right}).",
    "ex.write-backward.scale-by-dk": "{grad} is divided by d_k: {probe} your {grad} is the product with S̄ divided by "
        "{found} = d_k. Divide by √d_k = {right}, as in S = QKᵀ/√d_k.",
    "ex.write-backward.scale-other": "{grad} is divided by the wrong number: {probe} your {grad} is the product with "
        "S̄ divided by {found}. Divide by √d_k = {right}.",
    "ex.write-backward.softmax-jacobian": "The row-sum term is missing: {probe} your {grad} comes from S̄ = A ⊙ Ā. "
        "Every weight in a row depends on all of the row's scores, so S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
    "ex.write-backward.transposed-grad": "S̄ and S̄ᵀ are swapped: {probe} your {grad} comes from the transposed S̄. "
        "The rows of S̄ are queries and its columns keys: dQ = S̄·K/√d_k, dK = S̄ᵀ·Q/√d_k.",
    "ex.write-backward.no-max-shift": "exp overflowed when recomputing A: {probe} your gradients hold nan or inf "
        "where the engine's are finite. Subtract each row's maximum from its scores before exp.",
    "ex.first-look.hint_stage": "Look at the dot product of each query with each key: q_i · k_0 and q_i · k_1.",
    "ex.first-look.hint_formula": "The value of the key whose product with the query is larger gets the larger "
        "weight: compare q_0·k_0 with q_0·k_1, then q_1·k_0 with q_1·k_1.",
    "ex.scores.hint_stage": "This is the stage before scaling: the matrix QKᵀ, a row per query, a column per key.",
    "ex.scores.hint_formula": "Entry (i, j) is the dot product q_i · k_j: the sum of the products of matching "
        "coordinates of q_i and k_j.",
    "ex.weights.hint_stage": "This is row q_0 of the scaled scores S = QKᵀ/√d_k, then a softmax along it.",
    "ex.weights.hint_formula": "A_0j = e^(S_0j) / Σ_r e^(S_0r), where S_0j = q_0 · k_j / √d_k.",
    "ex.scores-by-hand.hint_stage": "This is the stage before scaling: the matrix QKᵀ, a row for every query and a "
        "column for every key.",
    "ex.scores-by-hand.hint_formula": "Entry (i, j) is q_i · k_j: multiply the coordinates of q_i and k_j in pairs "
        "and add the products.",
    "ex.weights-by-hand.hint_stage": "First the scaled scores S = QKᵀ/√d_k (here √d_k = {root}), then a softmax of "
        "every row.",
    "ex.weights-by-hand.hint_formula": "In a row take e^(S_ij), their sum, and divide each exponential by the sum; e "
        "≈ 2.72, 1/e ≈ 0.37.",
    "ex.output-by-hand.hint_stage": "This is the mixture of values: row o_i is built from the rows of V with the "
        "weights of row A_i,:.",
    "ex.output-by-hand.hint_formula": "o_i = Σ_j A_ij · v_j: multiply each row of V by its weight and add them up.",
    "ex.row-normalization.hint_stage": "Column j gathers the weights that different queries gave to key k_j. Does "
        "anything normalize them?",
    "ex.row-normalization.hint_formula": "Add up all the entries of A in two ways, by rows and by columns: the total "
        "is the same.",
    "ex.output-shape.hint_stage": "The output is O = A·V: look where each of its axes comes from.",
    "ex.output-shape.hint_formula": "A has shape [B, T, T] and V [B, T, d_v]; the product takes its last axis from V.",
    "ex.why-root-dk.hint_stage": "Recall the variance of a dot product q · k whose components are independent, with "
        "mean 0 and variance 1.",
    "ex.why-root-dk.hint_formula": "That variance grows like d_k; to keep it from growing, divide by its square root.",
    "ex.recurrent-vs-self.hint_stage": "Compare where the queries and the keys come from in encoder–decoder alignment "
        "and in self-attention.",
    "ex.recurrent-vs-self.hint_formula": "In Bahdanau's model the context is gathered anew for each step of the "
        "translation; a self-attention head compares the positions of one sequence all at once.",
    "ex.single-token.hint_stage": "A single token's row of weights is the softmax of a single score.",
    "ex.single-token.hint_formula": "The softmax of one number is always 1, and the output is the weighted sum of V's "
        "single row.",
    "ex.permutation.hint_stage": "Follow where a query row and the key and value rows move when the positions are "
        "permuted.",
    "ex.permutation.hint_formula": "Each score depends only on its pair (q_i, k_j): rows permuted together give the "
        "same pairs in new places.",
    "ex.identical-keys.hint_stage": "Look at one query's scores when all keys are identical.",
    "ex.identical-keys.hint_formula": "Identical keys give equal scores, and the softmax of equal numbers gives equal "
        "weights.",
    "ex.bug-hunt.hint_stage": "Look at the axis along which buggy_head takes the maximum and the sum.",
    "ex.bug-hunt.hint_formula": "axis=1 is the axis of queries: it is the columns of A that sum to 1. Compare the row "
        "sums with the column sums.",
    "ex.value-gradient.hint_stage": "This is the first step back: through O = AV to the values V. Here the weights A "
        "are constant factors.",
    "ex.value-gradient.hint_formula": "V̄ = AᵀŌ; with Ō = I that is Aᵀ, the weight matrix with its rows turned into "
        "columns.",
    "ex.weight-gradient.hint_stage": "The same step O = AV, but now the values V are constant and the weights A vary.",
    "ex.weight-gradient.hint_formula": "Ā = ŌVᵀ; with Ō = I that is Vᵀ: the rows of V become columns.",
    "ex.score-gradient.hint_stage": "This is the step through a row's softmax: from the weights' gradient Ā to the "
        "scaled scores' gradient S̄.",
    "ex.score-gradient.hint_formula": "For a row: ⟨a, ā⟩ = a_0 ā_0 + a_1 ā_1, then S̄_j = a_j (ā_j − ⟨a, ā⟩).",
    "ex.small-query-gradients.hint_stage": "The gradient Q̄ passes through the softmax; V̄ does not.",
    "ex.small-query-gradients.hint_formula": "The backward rule through softmax is S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)); when "
        "a row's weights are near 0 and 1, S̄ is nearly zero.",
    "ex.future-access.hint_stage": "In autoregressive training position i learns to predict the next token.",
    "ex.future-access.hint_formula": "A leak is query i seeing the keys of positions j > i; a head without a mask "
        "sees them all.",
    "ex.temperature-limits.hint_stage": "Look at what happens to the numbers s/τ as τ → 0 and as τ → ∞.",
    "ex.temperature-limits.hint_formula": "As τ → 0 the largest s/τ runs away from the rest and takes all the weight; "
        "as τ → ∞ every s/τ goes to 0 and the weights even out.",
    "ex.row-shift.hint_stage": "Take the factor e^c out of the softmax's numerator and denominator.",
    "ex.row-shift.hint_formula": "e^(s_j + c) / Σ_r e^(s_r + c) = e^c · e^(s_j) / (e^c · Σ_r e^(s_r)).",
    "ex.one-hot-gradient.hint_stage": "Look at the softmax's derivative for a row in which one weight is 1.",
    "ex.one-hot-gradient.hint_formula": "diag(w) − w·wᵀ for the row of weights w = (1, 0): every entry is zero, and "
        "no gradient reaches the scores.",
    "ex.causal-rows.hint_stage": "The mask hides the keys j > i before normalizing: query q_i keeps the keys k_0 … "
        "k_i.",
    "ex.causal-rows.hint_formula": "Take the softmax of each row of S over its visible keys only; the hidden weights "
        "are zeros.",
    "ex.head-width.hint_stage": "Each of the h heads gets its own share of the model's width.",
    "ex.head-width.hint_formula": "d_k = d_model / h, and the scale is 1/√d_k.",
    "ex.write-head.hint_stage": "The stages in order: the scores q @ kᵀ, the scale 1/√d_k, a softmax along the last "
        "axis, the mixture with v.",
    "ex.write-head.hint_formula": "s = q @ k.swapaxes(1, 2) / np.sqrt(d_k); subtract each row's maximum from s, take "
        "exp, divide by the row's sum and multiply by v.",
    "ex.write-backward.hint_stage": "Go backwards: dV and dA from O = A·V, then dS through the softmax, then dQ and "
        "dK from S = QKᵀ/√d_k.",
    "ex.write-backward.hint_formula": "dV = Aᵀ·dO, dA = dO·Vᵀ, dS = A ⊙ (dA − rowsum(A ⊙ dA)), dQ = dS·K/√d_k, dK = "
        "dSᵀ·Q/√d_k.",
    "code.case.worked": "on the worked example",
    "code.case.second": "on the second example (Q and K 3×4, V 3×2; you will compute it by hand in 27.8)",
    "code.case.random": "on a hidden case with B = {batch}, T = {tokens}, d_k = {key_width}, d_v = {value_width}",
    "code.case.single": "on a hidden case with one token (T = 1)",
    "code.case.large": "on a hidden case with large scores (about 10³)",
    "ex.write-head.expected": "an array O of shape {shapes}",
    "ex.write-head.answer": "O = softmax(QKᵀ/√d_k)·V, the softmax along the last axis (over keys)",
    "ex.write-head.explain": "One right solution, numpy only:\n\n{solution}\n\nSubtracting each row's maximum does "
        "not change the softmax (the factor e^(−max) cancels), but it keeps exp from overflowing on large scores.",
    "ex.write-backward.expected": "a tuple (dq, dk, dv) of arrays of shapes {shapes}",
    "ex.write-backward.answer": "dV = Aᵀ·dO, dA = dO·Vᵀ, dS = A ⊙ (dA − rowsum(A ⊙ dA)), dQ = dS·K/√d_k, "
        "dK = dSᵀ·Q/√d_k",
    "ex.write-backward.explain": "One right solution, numpy only: recompute the forward pass, then apply the "
        "chapter's formulas from the output back to the inputs:\n\n{solution}",
    "ex.bug-hunt.prompt": "buggy_head has one bug; it returns the weights A and the output O. Which property of its "
        "result on the worked example betrays the bug?",
    "ex.bug-hunt.a": "O has shape [B, T, T] instead of [B, T, d_v].",
    "ex.bug-hunt.b": "Some weights in A are negative.",
    "ex.bug-hunt.c": "The rows of A no longer sum to 1, but its columns do.",
    "ex.bug-hunt.d": "None: on the worked example QKᵀ is symmetric, so the bug does not show there.",
    "ex.bug-hunt.right": "The softmax here normalizes the query axis (axis=1): the rows of A sum to {row_sums} and "
        "its columns to {column_sums}. In a correct head it is the other way round: each row is one query's "
        "distribution over the keys.",
    "ex.bug-hunt.why_a": "The shape does not change: normalizing another axis divides by other sums, but O still "
        "has shape {shape}.",
    "ex.bug-hunt.why_b": "exp is positive whichever axis is normalized, so every weight stays between 0 and 1.",
    "ex.bug-hunt.why_d": "Symmetry hides K Qᵀ, not the softmax axis: with a symmetric S the buggy A is the transpose "
        "of the correct one, and its rows sum to {row_sums}.",
    "ex.bug-hunt.explain": "The softmax runs over the query axis (axis=1), not the keys: A.sum(axis=-1) = {row_sums}, "
        "A.sum(axis=-2) = {column_sums}. Fix the axis and the head is right; you will write one yourself in 27.6.",
    "section.bug_sums": "The buggy head on the worked example: row and column sums of A",
    "ex.value-gradient.prompt": "The backward pass starts from the last step, O = AV. Compute V̄ = AᵀŌ for the worked "
        "example with Ō = I (A and V are in the cell above). Answer with a 2×2 matrix, one row per value position; "
        "three decimals are enough.",
    "ex.value-gradient.form": "a 2×2 matrix as [[a, b], [c, d]]",
    "ex.value-gradient.form_hint": "Expected: a 2×2 matrix of the shape of V, one row per position j and one column "
        "per value feature.",
    "ex.value-gradient.wrong": "V̄_j = Σ_i A_ij ō_i: row j adds up the rows of Ō with the weights that every query "
        "gave to position j.",
    "ex.value-gradient.explain": "V̄ = AᵀŌ, and with Ō = I that is simply Aᵀ: V̄ = {answer}. Row j is column j of the "
        "weights A = {weights}: how much of each ō_i the value v_j receives.",
    "ex.weight-gradient.prompt": "The same step O = AV leads to the weights too. Compute Ā = ŌVᵀ with Ō = I. Answer "
        "with a 2×2 matrix, one row per query and one column per key.",
    "ex.weight-gradient.form": "a 2×2 matrix as [[a, b], [c, d]]",
    "ex.weight-gradient.form_hint": "Expected: a 2×2 matrix of the shape of A, one row per query and one column per "
        "key position.",
    "ex.weight-gradient.wrong": "Ā_ij = ō_i · v_j: the dot product of row i of the upstream gradient with value row j.",
    "ex.weight-gradient.explain": "Ā = ŌVᵀ, and with Ō = I that is Vᵀ: Ā = {answer}. Entry Ā_ij = ō_i · v_j says how "
        "much L would grow if query q_i gave position j a little more weight.",
    "ex.score-gradient.prompt": "Now through the softmax, row by row: S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)). For a row of "
        "weights a and its gradient ā, first find the one number ⟨a, ā⟩, then a ⊙ (ā − ⟨a, ā⟩). Answer with a 2×2 "
        "matrix; the numbers are small, give three decimals.",
    "ex.score-gradient.form": "a 2×2 matrix as [[a, b], [c, d]]",
    "ex.score-gradient.form_hint": "Expected: a 2×2 matrix of the shape of S, one row per query and one column per "
        "key.",
    "ex.score-gradient.wrong": "In row i: S̄_ij = A_ij (Ā_ij − Σ_r A_ir Ā_ir). First one number per row, ⟨a_i, ā_i⟩, "
        "then the difference from it, times the weight.",
    "ex.score-gradient.explain": "In row q_0: a = {row}, ā = {grad_row}, ⟨a, ā⟩ = {inner}, and S̄_0 = a ⊙ (ā − ⟨a, "
        "ā⟩) = {first}. All of it: S̄ = {answer}. Every row sums to 0: adding one number to a whole row of scores "
        "leaves the weights unchanged (27.1), so there is no gradient along that direction.",
    "ex.small-query-gradients.prompt": "Why are Q̄ and K̄ so much smaller than V̄ in the worked example?",
    "ex.small-query-gradients.a": "Because of the division by √d_k: that factor lies on the path to Q and K but not "
        "to V.",
    "ex.small-query-gradients.b": "It is always so: the gradients of queries and keys are smaller than those of "
        "values.",
    "ex.small-query-gradients.c": "The rows of A are nearly saturated, and a saturated row's softmax Jacobian is "
        "almost zero, so little reaches the scores, and with them Q and K.",
    "ex.small-query-gradients.d": "Because of Ō = I: the identity upstream gradient cancels the contributions that "
        "would reach Q and K.",
    "ex.small-query-gradients.right": "The path to Q and K runs through the softmax Jacobian: here a_0·a_1 = "
        "{products}, so S̄ = {grad_scores}, although Ā = {grad_weights}.",
    "ex.small-query-gradients.why_a": "That factor shrinks Q̄ and K̄ only by a factor of √d_k ≈ {root}, while ‖V̄‖ is "
        "{ratio} times ‖Q̄‖.",
    "ex.small-query-gradients.why_b": "Not always: for a uniform row a = {uniform} the Jacobian entry a_0·a_1 = "
        "{uniform_product}, and the gradient of the scores would be large.",
    "ex.small-query-gradients.why_d": "Ō enters V̄ = AᵀŌ and Ā = ŌVᵀ alike. The gradient shrinks later, in the "
        "softmax between Ā and S̄: Ā = {grad_weights}, but S̄ = {grad_scores}.",
    "ex.small-query-gradients.explain": "V̄ = AᵀŌ receives the weights directly. The path to Q and K runs through the "
        "softmax: for two keys J = a_0 a_1 [[1, −1], [−1, 1]], and in the example a_0·a_1 = {products}. So S̄ = "
        "{grad_scores}, although Ā = {grad_weights}. This is the saturation of 27.4: the more of a row's weight sits "
        "on one key, the less gradient reaches the scores, and through them Q and K.",
    "skill.dot-products": "dot products QKᵀ",
    "skill.scaling": "the scale 1/√d_k",
    "skill.row-softmax": "softmax along rows",
    "skill.mixing": "mixing values",
    "skill.shapes": "array shapes",
    "skill.properties": "the head's properties",
    "skill.gradients": "gradients",
    "skill.history": "attention's history",
    "skill.causal-mask": "the causal mask (chapter 28)",
    "notebook.01_predict": "What each query attends to",
    "notebook.02_scores_softmax_mixture": "Scores, scale, softmax and the mix",
    "notebook.03_shapes": "Rows, columns and the shape rule",
    "notebook.04_scaling": "Why divide by √d_k",
    "notebook.05_history": "From a recurrent context to self-attention",
    "notebook.06_head_from_primitives": "The head from differentiable operations",
    "notebook.07_gradients": "Gradients",
    "notebook.08_trace": "The second example by hand, and the trace",
    "notebook.09_next": "What the head lacks for training a decoder",
    "notebook.10_exercises": "Review",
    "review.all_mastered": "Every skill of the chapter is mastered. Below remain the questions that apply the chapter "
        "in new circumstances.",
    "review.skill": "Skill “{skill}”: {first_right} of {required} counted.",
    "review.return_to": "This skill's questions have no fresh examples. If you have not answered them yet, do (an "
        "answer right at the first attempt, without hints, counts): {titles}.",
    "review.title": "“{title}”",
    "review.fresh": "A fresh example to practise on:",
    "plane.qk_title": "q solid, k dashed",
    "plane.v_title": "v double; outputs: ● o₀, ■ o₁",
    "plane.scores": "Scores q·k",
    "plane.bars": "Weights (a row sums to 1)",
    "plane.weights": "Weights — {rows}.",
    "plane.alt": "The plane of the worked example's vectors: {vectors}. {weights} Outputs: {outputs}.",
    "plane.projections": "Dotted lines: the keys' lines; fine dashes: the perpendiculars from {name} to them, ▪ their "
        "feet",
    "plane.keys": "Below the figure each vector has two sliders, x and y: the arrow keys move it by 0.5, Shift with "
        "an arrow key by 0.1. With the mouse, drag an arrow's tip in the figure.",
    "plane.repr": "The vector plane: drag any arrow's tip with the mouse, or move it with its x and y sliders below "
        "the figure (needs a running kernel).",
    "plane.title": "The worked example's vectors in a plane: queries, keys, values and outputs",
    "plane.reset": "Back to the worked example",
    "plane.reset_given": "Back to the cell's inputs",
    "plane.two_by_two": "The plane holds two rows of two coordinates only: {name} here has shape {shape}.",
    "plane.unknown": "There is no vector “{name}” on the plane; there are: {names}.",
    "plane.not_finite": "The coordinates of {name} must be finite numbers.",
    "challenge.form": "This task's answer is the whole vector plane: {form}.",
    "challenge.others": "In this task only {name} moves. Away from where they started as well: {moved}. Press "
        "“{reset}” and move only {name}.",
    "challenge.unmoved": "{name} is still at its starting point {at}: move it on the plane above and check again.",
    "challenge.equal.right": "Done: q₀·k₀ = {s0} and q₀·k₁ = {s1}, so the weights are {w0} and {w1}. The key k₁ = "
        "{k1} projects onto q₀'s direction where k₀ does: only that projection counts, k₁'s length by itself decides "
        "nothing.",
    "challenge.equal.length": "k₁ is now as long as k₀ ({length}), yet the weights are {w0} and {w1}, because the "
        "scores {s0} and {s1} differ. A score is the key's projection onto q₀ times q₀'s length, not the key's "
        "length.",
    "challenge.equal.missing": "q₀'s weights are {w0} and {w1} so far: the scores q₀·k₀ = {s0} and q₀·k₁ = {s1} are "
        "not equal. Softmax splits evenly only when a row's scores are the same.",
    "challenge.equal.answer": "any point on the line through k₀ = {k0} perpendicular to q₀ = {q0} (here the line of "
        "k₀ itself): there q₀·k₁ = q₀·k₀ = {s0}",
    "challenge.strong.right": "Done: with q₁ = {q1} the scores are {s0} and {s1}, k₁'s weight is {w1}, and the output "
        "o₁ = {o1} has come close to v₁ = {v1}.",
    "challenge.strong.value": "q₁ points where v₁ does, but values take no part in the scores: k₁ gets a weight of "
        "{w1}. The weight follows the difference of scaled scores (q₁·k₁ − q₁·k₀)/√2 = {gap}, and a weight of {goal} "
        "needs at least ln 9 ≈ {need}.",
    "challenge.strong.missing": "q₁ gives k₁ a weight of {w1}, and it needs at least {goal}. The difference of scaled "
        "scores (q₁·k₁ − q₁·k₀)/√2 is {gap} now; it needs at least ln 9 ≈ {need}.",
    "challenge.strong.answer": "any q₁ with (q₁·k₁ − q₁·k₀)/√2 ≥ ln 9 ≈ {need}: for example q₁ pointed straight at k₁ "
        "and as long, q₁ = {k1}, gives k₁ a weight of {w1} (at least {goal} needed)",
    "challenge.long.right": "Done: q₀ = {q0}, the scores are {s0} and {s1} instead of {b0} and {b1}, the row of "
        "weights {after} instead of {before}. A query twice as long has twice the difference of scores, so softmax "
        "comes even closer to picking one key.",
    "challenge.long.turned": "q₀ = {q0} has left the original direction {start}: change only its nonzero coordinate.",
    "challenge.long.length": "q₀ = {q0} is {length} long now, and it should be exactly {target}: twice the original "
        "{original}.",
    "challenge.long.answer": "q₀ = {target}; the row of weights becomes {after} instead of {before}",
    "ex.plane-equal-prediction.title": "where k₁ evens q₀'s weights",
    "ex.plane-equal-prediction.prompt": "The task: move only k₁ so that q₀ gives both keys equal weights. Predict "
        "first: where can k₁ go for that?",
    "ex.plane-equal-prediction.a": "Only onto k₀: only identical keys get equal weights.",
    "ex.plane-equal-prediction.b": "Anywhere at the distance |k₀| from the origin: the key's length is what counts.",
    "ex.plane-equal-prediction.c": "Anywhere q₀·k₁ = q₀·k₀: a row's weights are equal when its scores are.",
    "ex.plane-equal-prediction.d": "Nowhere: k₀ is perpendicular to q₀, and its weight cannot rise to one half.",
    "ex.plane-equal-prediction.right": "Yes. A row's softmax sees only its scores, and two equal scores give 1/2 "
        "each. What is left is to find where q₀·k₁ equals q₀·k₀; there are many such points.",
    "ex.plane-equal-prediction.why_a": "Identical keys do get equal weights, but they are not the only ones: softmax "
        "sees only the scores, and many keys give the same score q₀·k.",
    "ex.plane-equal-prediction.why_b": "A key's length decides nothing by itself: the score q₀·k is k's projection "
        "onto q₀'s direction times q₀'s length. A key as long, turned towards q₀, gets a larger weight.",
    "ex.plane-equal-prediction.why_d": "A perpendicular key gets a score of 0, not a weight of 0: a weight depends on "
        "how its score compares with the row's other scores, and moving k₁ can make them equal.",
    "ex.plane-equal-prediction.explain": "A row's weights depend on its scores alone, and equal scores give equal "
        "weights.",
    "ex.plane-equal-prediction.hint_stage": "What does softmax take in: the keys or the scores?",
    "ex.plane-equal-prediction.hint_formula": "For a row of two scores, softmax(s₀, s₁) = (1/2, 1/2) exactly when s₀ "
        "= s₁.",
    "ex.plane-equal.title": "k₁ that evens q₀'s weights",
    "ex.plane-equal.prompt": "Now move only k₁ on the plane above, so that q₀'s two weights become 0.5 each, and "
        "press “Check”.",
    "ex.plane-equal.explain": "Equal weights are equal scores, and the score q₀·k depends only on k's projection onto "
        "q₀'s direction.",
    "ex.plane-equal.hint_stage": "Compare the two scores of q₀'s row in the figure: what must happen to q₀·k₁?",
    "ex.plane-equal.hint_formula": "The score q₀·k₁ must become equal to q₀·k₀ = {s0}. k₀ is perpendicular to q₀: "
        "where else does a key give a score of 0 with q₀?",
    "ex.plane-strong-prediction.title": "what q₁ needs to give k₁ a weight of 0.9",
    "ex.plane-strong-prediction.prompt": "The task: move only q₁ so that at least 0.9 of its weight goes to k₁ (and "
        "the output o₁ comes close to v₁). Predict first: what does that need?",
    "ex.plane-strong-prediction.a": "Turn q₁ towards v₁: an output is drawn to the value its query points at.",
    "ex.plane-strong-prediction.b": "The score q₁·k₁ must exceed q₁·k₀ by a wide margin: the difference of scores "
        "counts, and making q₁ longer widens a positive difference.",
    "ex.plane-strong-prediction.c": "Point q₁ straight at k₁; a query's length does not affect the weights.",
    "ex.plane-strong-prediction.d": "q₁ alone cannot do it: weights change only when the keys move.",
    "ex.plane-strong-prediction.right": "Yes. In a row of two weights the difference of scaled scores (q₁·k₁ − "
        "q₁·k₀)/√2 decides everything: turn q₁ from k₀ towards k₁ and, if that is not enough, make it longer.",
    "ex.plane-strong-prediction.why_a": "A query is compared with keys only; values take no part in the scores. Where "
        "o₁ moves is decided by the weights, and the weights by the scores q₁·k.",
    "ex.plane-strong-prediction.why_c": "Length counts: it multiplies both scores of the row, and their difference "
        "with them. A short q₁ pointed at k₁ may fall short of 0.9; a long one gets there.",
    "ex.plane-strong-prediction.why_d": "The score q₁·k depends on both vectors, so q₁ changes its row of weights "
        "just as moving the keys would.",
    "ex.plane-strong-prediction.explain": "In a row of two weights, k₁'s weight grows with the difference of scores "
        "q₁·k₁ − q₁·k₀, which both q₁'s direction and its length change.",
    "ex.plane-strong-prediction.hint_stage": "Do the values take part in the scores, or only in the mixture?",
    "ex.plane-strong-prediction.hint_formula": "For two scaled scores s₀, s₁ softmax gives the second weight 1/(1 + "
        "e^(s₀ − s₁)): it depends only on the difference s₁ − s₀.",
    "ex.plane-strong.title": "q₁ that gives k₁ at least 0.9",
    "ex.plane-strong.prompt": "Now move only q₁ on the plane above, so that the weight A₁₁ becomes at least 0.9, and "
        "press “Check”.",
    "ex.plane-strong.explain": "k₁'s weight in q₁'s row is set by the difference of scaled scores (q₁·k₁ − q₁·k₀)/√2, "
        "and a weight of 0.9 by a difference of ln 9.",
    "ex.plane-strong.hint_stage": "Watch the two scores of q₁'s row in the figure: which must become the larger?",
    "ex.plane-strong.hint_formula": "A weight of 0.9 needs a difference of scaled scores of ln 9 ≈ {need}, that is "
        "q₁·k₁ − q₁·k₀ ≥ √2·ln 9 ≈ {need_raw}. Turn q₁ towards k₁ and, if that is not enough, make it longer.",
    "ex.plane-long-prediction.title": "what a q₀ twice as long does to its weights",
    "ex.plane-long-prediction.prompt": "The task: make q₀ twice as long without turning it or moving anything else. "
        "Predict first: what happens to q₀'s row of weights?",
    "ex.plane-long-prediction.a": "Nothing: weights depend only on directions, and the length cancels in softmax.",
    "ex.plane-long-prediction.b": "Both weights double.",
    "ex.plane-long-prediction.c": "The row gets sharper: the larger weight comes closer to 1, the smaller to 0, as at "
        "a lower temperature.",
    "ex.plane-long-prediction.d": "The row gets flatter: a longer vector has a larger divisor √d_k.",
    "ex.plane-long-prediction.right": "Yes. A q₀ twice as long doubles both its scores, which is the same as dividing "
        "them by a temperature of 1/2 (temperature is in notebook 27.4): the difference of scores grows, and softmax "
        "comes closer to picking one key.",
    "ex.plane-long-prediction.why_a": "The length does not cancel: softmax does not divide the scores by the query's "
        "length. A q₀ twice as long has twice the scores and twice their difference.",
    "ex.plane-long-prediction.why_b": "A row's weights always sum to 1, so both cannot grow: doubled scores "
        "redistribute the weight, they do not multiply it.",
    "ex.plane-long-prediction.why_d": "√d_k depends on the vectors' width (2 here), not on their length: the divisor "
        "stays √2 while the scores grow.",
    "ex.plane-long-prediction.explain": "A query's length multiplies all its scores: a long query acts as a low "
        "temperature.",
    "ex.plane-long-prediction.hint_stage": "What happens to the scores q₀·k₀ and q₀·k₁ when q₀ doubles?",
    "ex.plane-long-prediction.hint_formula": "Are softmax(2s) and softmax(s) the same row? Compare the difference of "
        "the scores.",
    "ex.plane-long.title": "q₀ twice as long",
    "ex.plane-long.prompt": "Now double q₀'s length on the plane above without turning it, and press “Check”. Watch "
        "its row of weights.",
    "ex.plane-long.explain": "A query doubled doubles its scores, and its row of weights gets sharper.",
    "ex.plane-long.hint_stage": "q₀'s direction must stay the same: change only its nonzero coordinate (y).",
    "ex.plane-long.hint_formula": "Twice as long is 2·q₀: each coordinate doubles.",
    "challenge.equal.near": "Almost: q₀·k₁ = {s1}, and it should be {s0}, like q₀·k₀ (the weights are {w0} and {w1} "
        "so far). Without Shift the tip snaps to a grid of 0.5, which puts k₁ exactly on the line.",
    "challenge.strong.short": "q₁ points at k₁ but is short (length {length}): k₁ gets only {w1}. Length multiplies "
        "the difference of scores: make q₁ longer until (q₁·k₁ − q₁·k₀)/√2 = {gap} reaches ln 9 ≈ {need}.",
    "challenge.long.reversed": "q₀ = {q0} points the opposite way: its length may be right, but its direction must "
        "stay that of {start}.",
    "challenge.long.zero": "q₀ = (0, 0) is the zero vector and has no direction: both its scores are 0 and its "
        "weights equal.",
    "ex.plane-equal.form": "check(\"plane-equal\", plane), where plane is the plane above",
    "ex.plane-strong.form": "check(\"plane-strong\", plane), where plane is the plane above",
    "ex.plane-long.form": "check(\"plane-long\", plane), where plane is the plane above",
    "ex.first-look.title": "which value each query gives more weight to",
    "ex.scores.title": "the scores QKᵀ",
    "ex.weights.title": "the first query's weights",
    "ex.scores-by-hand.title": "the scores QKᵀ by hand",
    "ex.weights-by-hand.title": "the weights A by hand",
    "ex.output-by-hand.title": "the output O by hand",
    "ex.row-normalization.title": "the column sums of A",
    "ex.output-shape.title": "the output's shape",
    "ex.why-root-dk.title": "why √d_k and not d_k",
    "ex.recurrent-vs-self.title": "recurrent alignment and self-attention",
    "ex.single-token.title": "a single token",
    "ex.permutation.title": "swapping positions",
    "ex.identical-keys.title": "identical keys",
    "ex.bug-hunt.title": "what gives a buggy head away",
    "ex.value-gradient.title": "the values' gradient V̄",
    "ex.weight-gradient.title": "the weights' gradient Ā",
    "ex.score-gradient.title": "the scores' gradient S̄",
    "ex.small-query-gradients.title": "why Q̄ and K̄ are so small",
    "ex.future-access.title": "access to the future",
    "ex.temperature-limits.title": "temperature towards 0 and towards infinity",
    "ex.row-shift.title": "one number added to a whole row of scores",
    "ex.one-hot-gradient.title": "Q × 4: why Q̄ vanishes",
    "ex.causal-rows.title": "what a causal mask leaves",
    "ex.head-width.title": "a head's width and d_model",
    "ex.write-head.title": "the head, written yourself",
    "ex.write-backward.title": "the backward pass, written yourself",
    "unit.B": "B",
    "unit.KiB": "KiB",
    "unit.MiB": "MiB",
    "unit.GiB": "GiB",
    "record.shape": "shape {shape}",
    "history.name.decoder-state": "decoder state {index}",
    "history.name.encoder-annotation": "encoder annotation {index}",
    "history.name.hidden-position": "position {index}",
    "cost.impl.head": "the chapter's head",
    "cost.impl.tiled": "tiled head",
    "cost.impl.torch": "PyTorch, the same steps",
    "cost.impl.sdpa": "PyTorch SDPA",
    "cost.block.slider": "tile size",
    "cost.block.axis": "tile size",
    "cost.block.time_title": "Tiled head, T = {tokens}, B = {batch}, d = {width}: time, ms",
    "cost.block.memory_title": "numpy's peak memory, MiB",
    "cost.block.head_record": "the chapter's head's record (three [B,T,T] and the output)",
    "cost.block.numbers": "tile {block}: {ms} ms, peak {peak} MiB; the chapter's head's record at the same "
        "sizes is {record} MiB.",
    "cost.block.repr": "Widget: the tiled head's tile size (needs a running kernel)",
}
