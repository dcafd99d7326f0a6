(* Program.v — the executions of a program, and "for every execution of this program" decided by
   enumerating them.

   A program is a skeleton (an [exec] holding every potential event, as if every guard held, with
   its labels and static relations; its rf, co and fr mean nothing) and its guards: an event e
   under [if (r == v)] has [gread P r e] (r is the guard read) and [gwrite P w e] (w is the write
   of value v; stores write distinct values). An execution [runs] the program when it is the
   skeleton cut to its events ([exec_of], Exec.v) and an event of the skeleton is present exactly
   when its guard holds.

   [candidates n PB] lists every execution of a concrete program as a [bexec], and
   [candidates_complete] says each well-formed execution is mirrored by one of them. The
   statement is double-negated: a Prop relation cannot be turned into a boolean without an axiom,
   but it can under [~~] ([tabulate]). A goal that is [stable] ([~~A -> A]; negations, checks,
   implications into them) can use that: [forall_executions] turns a boolean check of every
   candidate into a statement about every execution.

   Owned here: programs, [runs] and its decision, stability, tabulation, the enumeration and its
   completeness, and transport between a program and its compilation ([runs_transport]). Uses Exec.v and Model_wf.v (generated into every export). No axioms. *)
From Coq Require Import List Bool PeanoNat Lia.
From Mapcheck Require Import Rel Dec Checks Exec Model_wf.
Import ListNotations.

(* ------------------------------------------------------------------ *)
(* Programs                                                            *)

Record program := { pr : exec; gread : rel; gwrite : rel }.
Record bprogram := { bpr : bexec; bgread : brel; bgwrite : brel }.

Record program_reflects (n : nat) (P : program) (PB : bprogram) : Prop := {
  rp_pr : exec_reflects n (pr P) (bpr PB);
  rp_gread : reflects n (gread P) (bgread PB);
  rp_gwrite : reflects n (gwrite P) (bgwrite PB)
}.

(* The predicate program a boolean one stands for. *)
Definition of_bprogram (n : nat) (PB : bprogram) : program :=
  {| pr := of_bexec n (bpr PB); gread := rel_of n (bgread PB); gwrite := rel_of n (bgwrite PB) |}.

Lemma of_bprogram_reflects : forall n PB, program_reflects n (of_bprogram n PB) PB.
Proof.
  intros n PB. constructor; simpl; [apply of_bexec_reflects | apply rel_of_reflects | apply rel_of_reflects].
Qed.

(* ------------------------------------------------------------------ *)
(* Executions of a program                                             *)

(* e's guard holds in X: its guard read is present and reads from the guard's write. *)
Definition guards_hold (P : program) (X : exec) (e : event) : Prop :=
  (forall r, gread P r e -> E X r) /\ (forall r w, gread P r e -> gwrite P w e -> rf X w r).

Definition runs (P : program) (X : exec) : Prop :=
  exec_of (pr P) X /\ (forall e, E (pr P) e -> (E X e <-> guards_hold P X e)).

Definition guards_hold_b (n : nat) (PB : bprogram) (e : bset) (rfb : brel) (x : nat) : bool :=
  forallb (fun r => implb (bgread PB r x)
    (e r && forallb (fun w => implb (bgwrite PB w x) (rfb w r)) (upto n))) (upto n).

(* The events of the skeleton present in e are those whose guards hold. *)
Definition guards_ok_b (n : nat) (PB : bprogram) (e : bset) (rfb : brel) : bool :=
  forallb (fun x => implb (b_E (bpr PB) x) (Bool.eqb (e x) (guards_hold_b n PB e rfb x))) (upto n).

Definition runs_b (n : nat) (PB : bprogram) (XB : bexec) : bool :=
  exec_of_b n (bpr PB) XB && guards_ok_b n PB (b_E XB) (b_rf XB).

Lemma guards_hold_dec : forall n P PB X e rfb x,
  program_reflects n P PB -> reflects_set n (E X) e -> reflects n (rf X) rfb -> x < n ->
  (guards_hold_b n PB e rfb x = true <-> guards_hold P X x).
Proof.
  intros n P PB X e rfb x HP He Hrf Hx. unfold guards_hold_b, guards_hold.
  rewrite forallb_upto. split.
  - intro B. split.
    + intros r G. apply (rp_gread _ _ _ HP) in G. destruct G as (Hr & _ & Bg).
      specialize (B r Hr). rewrite Bg in B. simpl in B. apply andb_true_iff in B.
      apply He. tauto.
    + intros r w G Gw. apply (rp_gread _ _ _ HP) in G. destruct G as (Hr & _ & Bg).
      apply (rp_gwrite _ _ _ HP) in Gw. destruct Gw as (Hw & _ & Bw).
      specialize (B r Hr). rewrite Bg in B. simpl in B. apply andb_true_iff in B.
      destruct B as [_ B]. rewrite forallb_upto in B. specialize (B w Hw).
      rewrite Bw in B. apply Hrf. auto.
  - intros [G1 G2] r Hr. destruct (bgread PB r x) eqn:Bg; [|reflexivity].
    assert (G : gread P r x) by (apply (rp_gread _ _ _ HP); auto).
    simpl. apply andb_true_iff. split.
    + apply He, G1, G.
    + apply forallb_upto. intros w Hw. destruct (bgwrite PB w x) eqn:Bw; [|reflexivity].
      assert (Gw : gwrite P w x) by (apply (rp_gwrite _ _ _ HP); auto).
      apply (Hrf w r), G2; assumption.
Qed.

Lemma guards_ok_dec : forall n P PB X e rfb,
  program_reflects n P PB -> reflects_set n (E X) e -> reflects n (rf X) rfb ->
  (guards_ok_b n PB e rfb = true <-> forall x, E (pr P) x -> (E X x <-> guards_hold P X x)).
Proof.
  intros n P PB X e rfb HP He Hrf. unfold guards_ok_b. rewrite forallb_upto. split.
  - intros B x Ex. apply (r_E _ _ _ (rp_pr _ _ _ HP)) in Ex. destruct Ex as [Hx Bx].
    specialize (B x Hx). rewrite Bx in B. simpl in B. apply eqb_prop in B.
    rewrite <- (guards_hold_dec n P PB X e rfb x HP He Hrf Hx), <- B, (He x). tauto.
  - intros G x Hx. destruct (b_E (bpr PB) x) eqn:Bx; [|reflexivity]. simpl.
    apply eqb_true_iff.
    assert (Ex : E (pr P) x) by (apply (r_E _ _ _ (rp_pr _ _ _ HP)); auto).
    specialize (G x Ex). rewrite <- (guards_hold_dec n P PB X e rfb x HP He Hrf Hx), (He x) in G.
    destruct (e x), (guards_hold_b n PB e rfb x); try reflexivity; exfalso; destruct G as [G1 G2].
    + discriminate (G1 (conj Hx eq_refl)).
    + destruct (G2 eq_refl) as [_ F]. discriminate F.
Qed.

Lemma runs_dec : forall n P PB X XB, program_reflects n P PB -> exec_reflects n X XB ->
  (runs_b n PB XB = true <-> runs P X).
Proof.
  intros n P PB X XB HP HX. unfold runs_b, runs. apply andb_dec.
  - apply (exec_of_dec n _ _ _ _ (rp_pr _ _ _ HP) HX).
  - apply (guards_ok_dec n P PB X); [exact HP | apply (r_E _ _ _ HX) | apply (r_rf _ _ _ HX)].
Qed.

(* ------------------------------------------------------------------ *)
(* Stability: reasoning under ~~ without excluded middle               *)

Definition stable (A : Prop) : Prop := ~ ~ A -> A.

Lemma stable_not : forall A, stable (~ A).
Proof. intros A NN a. apply NN. intro NA. exact (NA a). Qed.

Lemma stable_and : forall A B, stable A -> stable B -> stable (A /\ B).
Proof.
  intros A B HA HB NN. split; [apply HA | apply HB]; intro N; apply NN; intros [a b]; auto.
Qed.

Lemma stable_impl : forall A B, stable B -> stable (A -> B).
Proof. intros A B HB NN a. apply HB. intro NB. apply NN. intro f. exact (NB (f a)). Qed.

Lemma stable_forall : forall T (A : T -> Prop), (forall x, stable (A x)) -> stable (forall x, A x).
Proof. intros T A H NN x. apply H. intro NA. apply NN. intro f. exact (NA (f x)). Qed.

Lemma stable_true : forall b : bool, stable (b = true).
Proof. intros [|] NN; [reflexivity | exfalso; apply NN; discriminate]. Qed.

(* A decided Prop is stable. *)
Lemma stable_dec : forall (b : bool) (A : Prop), (b = true <-> A) -> stable A.
Proof. intros b A H NN. apply H, stable_true. intro N. apply NN. intro a. apply N, H, a. Qed.

Lemma stable_lt : forall x n, stable (x < n).
Proof. intros x n. apply (stable_dec (Nat.ltb x n)), Nat.ltb_lt. Qed.

Lemma stable_eq : forall x y : nat, stable (x = y).
Proof. intros x y. apply (stable_dec (Nat.eqb x y)), Nat.eqb_eq. Qed.

Lemma stable_empty : forall r, stable (empty r).
Proof. intro r. do 2 (apply stable_forall; intro). apply stable_not. Qed.

Lemma stable_irreflexive : forall r, stable (irreflexive r).
Proof. intro r. apply stable_forall; intro. apply stable_not. Qed.

Lemma stable_acyclic : forall r, stable (acyclic r).
Proof. intro r. apply stable_irreflexive. Qed.

Lemma stable_set_empty : forall s, stable (set_empty s).
Proof. intro s. apply stable_forall; intro. apply stable_not. Qed.

Lemma stable_reflects_set : forall n s b, reflects_set n s b -> forall x, stable (s x).
Proof.
  intros n s b H x. apply (stable_dec (Nat.ltb x n && b x)).
  rewrite andb_true_iff, Nat.ltb_lt, (H x). tauto.
Qed.

Lemma stable_reflects : forall n r b, reflects n r b -> forall x y, stable (r x y).
Proof.
  intros n r b H x y. apply (stable_dec (Nat.ltb x n && Nat.ltb y n && b x y)).
  rewrite !andb_true_iff, !Nat.ltb_lt, (H x y). tauto.
Qed.

Lemma nn_em : forall A : Prop, ~ ~ (A \/ ~ A).
Proof. intros A N. apply N. right. intro a. apply N. left. exact a. Qed.

(* ------------------------------------------------------------------ *)
(* Tabulation: under ~~, a Prop relation has a boolean mirror          *)

Lemma tabulate_list : forall (A : Type) (eq_dec : forall x y : A, {x = y} + {x <> y})
  (p : A -> Prop) (l : list A), ~ ~ exists b : A -> bool, forall a, In a l -> (p a <-> b a = true).
Proof.
  intros A eq_dec p l. induction l as [|a l IH]; intro K.
  - apply K. exists (fun _ => false). intros a [].
  - apply IH. intros [b Hb]. apply (nn_em (p a)). intros [Pa | Pa]; apply K;
      [exists (fun x => if eq_dec x a then true else b x)
      | exists (fun x => if eq_dec x a then false else b x)];
      intros x Hx; (destruct (eq_dec x a) as [->|Ne];
        [split; [intro; solve [reflexivity | contradiction] | intro B; solve [exact Pa | discriminate]]
        | destruct Hx as [->|Hx]; [contradiction | apply Hb, Hx]]).
Qed.

Lemma tabulate_set : forall n (s : set),
  ~ ~ exists b : bset, forall x, x < n -> (s x <-> b x = true).
Proof.
  intros n s K. apply (tabulate_list nat Nat.eq_dec s (upto n)). intros [b Hb].
  apply K. exists b. intros x Hx. apply Hb, in_upto, Hx.
Qed.

Definition pair_eq_dec : forall p q : nat * nat, {p = q} + {p <> q}.
Proof. decide equality; apply Nat.eq_dec. Defined.

Lemma tabulate : forall n (r : rel),
  ~ ~ exists b : brel, forall x y, x < n -> y < n -> (r x y <-> b x y = true).
Proof.
  intros n r K.
  apply (tabulate_list (nat * nat) pair_eq_dec (fun p => r (fst p) (snd p))
           (list_prod (upto n) (upto n))).
  intros [b Hb]. apply K. exists (fun x y => b (x, y)). intros x y Hx Hy.
  apply (Hb (x, y)). apply in_prod; apply in_upto; assumption.
Qed.

(* ------------------------------------------------------------------ *)
(* Enumeration                                                         *)

Fixpoint subsets {A : Type} (l : list A) : list (list A) :=
  match l with
  | [] => [[]]
  | a :: l' => let s := subsets l' in map (cons a) s ++ s
  end.

(* One element of each list, in order. *)
Fixpoint choices {A : Type} (ls : list (list A)) : list (list A) :=
  match ls with
  | [] => [[]]
  | l :: ls' => let c := choices ls' in flat_map (fun a => map (cons a) c) l
  end.

Lemma subsets_filter : forall A (f : A -> bool) l, In (filter f l) (subsets l).
Proof.
  intros A f l. induction l as [|a l IH]; simpl; [auto|].
  destruct (f a); apply in_or_app; [left; apply in_map | right]; exact IH.
Qed.

Lemma choices_map : forall A B (f : A -> B) (h : A -> list B) l,
  (forall a, In a l -> In (f a) (h a)) -> In (map f l) (choices (map h l)).
Proof.
  intros A B f h l. induction l as [|a l IH]; simpl; intro H; [auto|].
  apply in_flat_map. exists (f a). split; [apply H; auto | apply in_map, IH; auto].
Qed.

Definition skeleton_events (n : nat) (PB : bprogram) : list nat := filter (b_E (bpr PB)) (upto n).
Definition guarded (n : nat) (PB : bprogram) (x : nat) : bool := existsb (fun r => bgread PB r x) (upto n).
Definition unguarded_events (n : nat) (PB : bprogram) : list nat :=
  filter (fun x => negb (guarded n PB x)) (skeleton_events n PB).
Definition guarded_events (n : nat) (PB : bprogram) : list nat :=
  filter (guarded n PB) (skeleton_events n PB).

(* Every present event's guard reads are present. *)
Definition guards_closed (n : nat) (PB : bprogram) (es : list nat) : bool :=
  forallb (fun x => forallb (fun r => implb (bgread PB r x) (bset_of_list es r)) (upto n)) es.

(* The unguarded events and some of the guarded ones. *)
Definition event_choices (n : nat) (PB : bprogram) : list (list nat) :=
  filter (guards_closed n PB)
    (map (fun s => unguarded_events n PB ++ s) (subsets (guarded_events n PB))).

Definition reads_of (PB : bprogram) (es : list nat) : list nat := filter (b_R (bpr PB)) es.

(* The writes among es that read r may read from. *)
Definition sources (PB : bprogram) (es : list nat) (r : nat) : list nat :=
  filter (fun w => b_W (bpr PB) w && b_loc (bpr PB) w r) es.

(* rf: one source for each read, such that exactly the events whose guards hold are present. *)
Definition rf_choices (n : nat) (PB : bprogram) (es : list nat) : list (list (nat * nat)) :=
  filter (fun rfs => guards_ok_b n PB (bset_of_list es) (brel_of_list rfs))
    (choices (map (fun r => map (fun w => (w, r)) (sources PB es r)) (reads_of PB es))).

(* Pairs co may hold: distinct writes of es, same location, no initial write second. *)
Definition co_pairs (PB : bprogram) (es : list nat) : list (nat * nat) :=
  filter (fun p => negb (Nat.eqb (fst p) (snd p)) && b_W (bpr PB) (fst p) && b_W (bpr PB) (snd p)
                   && b_loc (bpr PB) (fst p) (snd p) && negb (b_IW (bpr PB) (snd p)))
    (list_prod es es).

Definition co_transitive_b (n : nat) (c : brel) : bool := bempty n (bminus (bseq n c c) c).

Definition co_choices (n : nat) (PB : bprogram) (es : list nat) : list (list (nat * nat)) :=
  filter (fun cos => co_transitive_b n (brel_of_list cos)) (subsets (co_pairs PB es)).

Definition execution (n : nat) (PB : bprogram) (es : list nat) (rfs cos : list (nat * nat)) : bexec :=
  let rfb := brel_of_list rfs in
  let cob := brel_of_list cos in
  brestrict (bpr PB) (bset_of_list es) rfb cob (bseq n (binv rfb) cob).

(* The executions of the program with their co from [cochoices] (given the events). *)
Definition candidates_with (n : nat) (PB : bprogram) (cochoices : list nat -> list (list (nat * nat)))
  : list bexec :=
  flat_map (fun es =>
    let cs := cochoices es in
    flat_map (fun rfs => map (execution n PB es rfs) cs) (rf_choices n PB es))
  (event_choices n PB).

(* Every execution of the program (and possibly some that are not well formed). *)
Definition candidates (n : nat) (PB : bprogram) : list bexec := candidates_with n PB (co_choices n PB).

(* `coherence total` models (RC11, C11, OpenCL): co orders all writes of a location. *)
Definition co_total (X : exec) : Prop :=
  empty (minus (minus (inter (cross (W X) (W X)) (loc X)) (id X)) (union (co X) (inv (co X)))).

(* For a total co only its total orders need enumerating, far fewer than the transitive subsets
   of [co_pairs]: one direction for each pair a < b of writes of es to one location (the initial
   write first), kept when transitive. *)
Definition co_upairs (PB : bprogram) (es : list nat) : list (nat * nat) :=
  filter (fun p => Nat.ltb (fst p) (snd p) && b_W (bpr PB) (fst p) && b_W (bpr PB) (snd p)
                   && (b_loc (bpr PB) (fst p) (snd p) || b_loc (bpr PB) (snd p) (fst p)))
    (list_prod es es).

Definition co_directions (PB : bprogram) (p : nat * nat) : list (nat * nat) :=
  if b_IW (bpr PB) (fst p) then [p]
  else if b_IW (bpr PB) (snd p) then [(snd p, fst p)]
  else [p; (snd p, fst p)].

Definition co_total_choices (n : nat) (PB : bprogram) (es : list nat) : list (list (nat * nat)) :=
  filter (fun cos => co_transitive_b n (brel_of_list cos))
    (choices (map (co_directions PB) (co_upairs PB es))).

(* Every execution of the program with a total co (and possibly some that are not well formed). *)
Definition total_candidates (n : nat) (PB : bprogram) : list bexec :=
  candidates_with n PB (co_total_choices n PB).

(* ------------------------------------------------------------------ *)
(* What completeness needs of wf.cat                                   *)

Section Wf.
Variable X : exec.
Hypothesis Hwf : wf_consistent X.

Lemma wf_in_events : forall a b, rf X a b \/ co X a b \/ fr X a b -> ~ ~ (E X a /\ E X b).
Proof.
  intros a b Hab N. assert (H : wf_ax_relations_in_events X) by (unfold wf_consistent in Hwf; tauto).
  apply (H a b). split; [|exact N]. cbv [union]. tauto.
Qed.

Lemma wf_rf_shape : forall w r, rf X w r -> ~ ~ ((W X w /\ R X r) /\ loc X w r).
Proof.
  intros w r Hr N. assert (H : wf_ax_rf_shape X) by (unfold wf_consistent in Hwf; tauto).
  apply (H w r). split; [exact Hr | exact N].
Qed.

Lemma wf_rf_unique : forall w w' r, rf X w r -> rf X w' r -> w = w'.
Proof.
  intros w w' r H1 H2. assert (Fn : wf_ax_rf_functional X) by (unfold wf_consistent in Hwf; tauto).
  assert (Id : wf_ax_id_def X) by (unfold wf_consistent in Hwf; tauto).
  destruct (Nat.eq_dec w w') as [Eq|Ne]; [exact Eq | exfalso].
  apply (Fn w w'). split; [exists r; split; assumption|].
  intro I. apply (Id w w'). left. split; [exact I|]. intros [_ Eq]. exact (Ne Eq).
Qed.

Lemma wf_rf_total : forall r, R X r -> ~ ~ exists w, rf X w r.
Proof.
  intros r Hr N. assert (H : wf_ax_rf_total X) by (unfold wf_consistent in Hwf; tauto).
  apply (H r). split; [exact Hr | exact N].
Qed.

Lemma wf_co_shape : forall a b, co X a b -> ~ ~ ((W X a /\ W X b) /\ loc X a b).
Proof.
  intros a b Hc N. assert (H : wf_ax_co_shape X) by (unfold wf_consistent in Hwf; tauto).
  apply (H a b). split; [exact Hc | exact N].
Qed.

Lemma wf_co_irreflexive : forall a, ~ co X a a.
Proof. assert (H : wf_ax_co_irreflexive X) by (unfold wf_consistent in Hwf; tauto). exact H. Qed.

Lemma wf_co_init_first : forall a b, co X a b -> ~ IW X b.
Proof.
  intros a b Hc Ib. assert (H : wf_ax_co_init_first X) by (unfold wf_consistent in Hwf; tauto).
  apply (H a b). exists b. split; [exact Hc | split; [exact Ib | reflexivity]].
Qed.

Lemma wf_co_transitive : empty (minus (seq (co X) (co X)) (co X)).
Proof. unfold wf_consistent in Hwf. tauto. Qed.

Lemma wf_fr : empty (union (minus (fr X) (seq (inv (rf X)) (co X))) (minus (seq (inv (rf X)) (co X)) (fr X))).
Proof. unfold wf_consistent in Hwf. tauto. Qed.

End Wf.

(* An equation stated as two empty differences, between reflected relations. *)
Lemma empty_same : forall n a b ba bb, reflects n a ba -> reflects n b bb ->
  empty (union (minus a b) (minus b a)) -> same_rel a b.
Proof.
  intros n a b ba bb Ha Hb H. split; intros x y R.
  - apply (stable_reflects n b bb Hb). intro N. apply (H x y). left. split; assumption.
  - apply (stable_reflects n a ba Ha). intro N. apply (H x y). right. split; assumption.
Qed.

(* A tabulated relation within the events reflects its table. *)
Lemma tabulated_reflects : forall n (r : rel) b,
  (forall x y, r x y -> ~ ~ (x < n /\ y < n)) ->
  (forall x y, x < n -> y < n -> (r x y <-> b x y = true)) -> reflects n r b.
Proof.
  intros n r b Hin Htab x y. split.
  - intro H. assert (B : x < n /\ y < n).
    { apply stable_and; [apply stable_lt | apply stable_lt | apply Hin, H]. }
    destruct B as [Hx Hy]. split; [exact Hx | split; [exact Hy | apply Htab; assumption]].
  - intros (Hx & Hy & B). apply Htab; assumption.
Qed.

(* ------------------------------------------------------------------ *)
(* Completeness: one candidate mirrors each execution, given tables of *)
(* its events, rf, co and fr                                           *)

Section Complete.
Variables (n : nat) (P : program) (PB : bprogram) (X : exec).
Hypothesis HP : program_reflects n P PB.
Hypothesis Hrun : runs P X.
Hypothesis Hwf : wf_consistent X.
Variables (eb : bset) (rb cb fb : brel).
Hypothesis Heb : forall x, x < n -> (E X x <-> eb x = true).
Hypothesis Hrb : forall x y, x < n -> y < n -> (rf X x y <-> rb x y = true).
Hypothesis Hcb : forall x y, x < n -> y < n -> (co X x y <-> cb x y = true).
Hypothesis Hfb : forall x y, x < n -> y < n -> (fr X x y <-> fb x y = true).

Lemma events_below : forall x, E X x -> x < n.
Proof.
  intros x Ex. apply (reflects_set_in (r_E _ _ _ (rp_pr _ _ _ HP))). apply (proj1 (proj1 Hrun)), Ex.
Qed.

Lemma in_events_below : forall a b, rf X a b \/ co X a b \/ fr X a b -> ~ ~ (a < n /\ b < n).
Proof.
  intros a b H N. apply (wf_in_events X Hwf a b H). intros [Ea Eb].
  apply N. split; apply events_below; assumption.
Qed.

Lemma He0 : reflects_set n (E X) eb.
Proof.
  intro x. split.
  - intro Ex. split; [apply events_below, Ex | apply Heb; [apply events_below|]; exact Ex].
  - intros [Hx B]. apply Heb; assumption.
Qed.

Lemma Hrf0 : reflects n (rf X) rb.
Proof. apply tabulated_reflects; [intros; apply in_events_below; tauto | exact Hrb]. Qed.

Lemma Hco0 : reflects n (co X) cb.
Proof. apply tabulated_reflects; [intros; apply in_events_below; tauto | exact Hcb]. Qed.

Lemma Hfr0 : reflects n (fr X) fb.
Proof. apply tabulated_reflects; [intros; apply in_events_below; tauto | exact Hfb]. Qed.

Lemma fr_same : same_rel (seq (inv (rf X)) (co X)) (fr X).
Proof.
  apply same_rel_sym. apply (empty_same n _ _ fb (bseq n (binv rb) cb) Hfr0).
  - apply seq_reflects; [apply inv_reflects, Hrf0 | apply Hco0].
  - apply wf_fr, Hwf.
Qed.

Definition XT : bexec := brestrict (bpr PB) eb rb cb (bseq n (binv rb) cb).

Lemma HXT : exec_reflects n X XT.
Proof.
  apply (exec_of_reflects n (pr P) (bpr PB) X); [apply HP | apply Hrun | apply He0 | apply Hrf0 | apply Hco0|].
  apply (reflects_same fr_same). apply seq_reflects; [apply inv_reflects, Hrf0 | apply Hco0].
Qed.

(* The labels of X's events are the skeleton's. *)
Lemma label_of : forall (S : exec -> set) (SB : bexec -> bset) x,
  reflects_set n (S X) (SB XT) -> SB XT = bset_inter (SB (bpr PB)) eb -> S X x -> SB (bpr PB) x = true.
Proof.
  intros S SB x H Eq Sx. apply H in Sx. rewrite Eq in Sx. unfold bset_inter in Sx.
  destruct Sx as [_ Sx]. apply andb_true_iff in Sx. tauto.
Qed.

Lemma label_in : forall (S : exec -> set) (SB : bexec -> bset) x,
  reflects_set n (S X) (SB XT) -> SB XT = bset_inter (SB (bpr PB)) eb -> E X x ->
  SB (bpr PB) x = true -> S X x.
Proof.
  intros S SB x H Eq Ex B. apply H. rewrite Eq. unfold bset_inter. apply He0 in Ex.
  destruct Ex as [Hx Bx]. rewrite B, Bx. auto.
Qed.

(* ---- events ---- *)

Definition es : list nat := unguarded_events n PB ++ filter eb (guarded_events n PB).

Lemma skeleton_in : forall x, In x (skeleton_events n PB) -> x < n /\ E (pr P) x.
Proof.
  intros x H. unfold skeleton_events in H. apply filter_In in H. destruct H as [Hx B].
  apply in_upto in Hx. split; [exact Hx | apply (r_E _ _ _ (rp_pr _ _ _ HP)); auto].
Qed.

Lemma es_below : forall x, In x es -> x < n /\ E (pr P) x.
Proof.
  intros x H. apply skeleton_in. unfold es, unguarded_events, guarded_events in H.
  apply in_app_or in H. destruct H as [H|H]; apply filter_In in H; [tauto|].
  destruct H as [H _]. apply filter_In in H. tauto.
Qed.

Lemma es_iff : forall x, In x es <-> E X x.
Proof.
  intro x. split.
  - intro H. destruct (es_below x H) as [Hx Px]. unfold es in H. apply in_app_or in H.
    destruct H as [H|H].
    + unfold unguarded_events in H. apply filter_In in H. destruct H as [_ G].
      apply (proj2 Hrun x Px). split.
      * intros r Gr. exfalso. apply (rp_gread _ _ _ HP) in Gr. destruct Gr as (Hr & _ & Bg).
        assert (Gx : guarded n PB x = true) by (apply existsb_upto; eauto).
        rewrite Gx in G. discriminate.
      * intros r w Gr. exfalso. apply (rp_gread _ _ _ HP) in Gr. destruct Gr as (Hr & _ & Bg).
        assert (Gx : guarded n PB x = true) by (apply existsb_upto; eauto).
        rewrite Gx in G. discriminate.
    + apply filter_In in H. apply Heb; tauto.
  - intro Ex. pose proof (proj1 (proj1 Hrun) x Ex) as Px.
    apply (r_E _ _ _ (rp_pr _ _ _ HP)) in Px. destruct Px as [Hx Bx].
    assert (Sk : In x (skeleton_events n PB)) by (apply filter_In; split; [apply in_upto|]; assumption).
    unfold es. apply in_or_app. destruct (guarded n PB x) eqn:G.
    + right. apply filter_In. split; [apply filter_In; auto | apply Heb; assumption].
    + left. apply filter_In. rewrite G. auto.
Qed.

Lemma He1 : reflects_set n (E X) (bset_of_list es).
Proof.
  intro x. rewrite bset_of_list_true, es_iff. split; [|tauto].
  intro Ex. split; [apply events_below|]; exact Ex.
Qed.

Lemma es_in : In es (event_choices n PB).
Proof.
  apply filter_In. split; [apply in_map, subsets_filter|].
  apply forallb_forall. intros x Hx. apply forallb_upto. intros r Hr.
  destruct (bgread PB r x) eqn:Bg; [|reflexivity]. simpl.
  destruct (es_below x Hx) as [Hxn Px].
  assert (Gr : gread P r x) by (apply (rp_gread _ _ _ HP); auto).
  apply bset_of_list_true, es_iff. apply es_iff in Hx.
  apply (proj2 Hrun x Px) in Hx. apply (proj1 Hx r Gr).
Qed.

(* ---- rf ---- *)

Lemma rf_in : forall w r, rf X w r -> In w (sources PB es r) /\ In r (reads_of PB es).
Proof.
  intros w r H.
  assert (S : (W X w /\ R X r) /\ loc X w r).
  { apply stable_and; [apply stable_and | |];
      [apply (stable_reflects_set _ _ _ (r_W _ _ _ HXT))
      | apply (stable_reflects_set _ _ _ (r_R _ _ _ HXT))
      | apply (stable_reflects _ _ _ (r_loc _ _ _ HXT))
      | apply (wf_rf_shape X Hwf), H]. }
  assert (Ev : E X w /\ E X r).
  { apply stable_and; [apply (stable_reflects_set _ _ _ He0) | apply (stable_reflects_set _ _ _ He0)
      | apply (wf_in_events X Hwf); auto]. }
  destruct S as [[Ww Rr] L]. destruct Ev as [Ew Er].
  apply (r_loc _ _ _ HXT) in L. destruct L as (_ & _ & L). simpl in L. unfold binter in L.
  apply andb_true_iff in L. destruct L as [L _].
  split; apply filter_In; (split; [apply es_iff; assumption|]).
  - rewrite (label_of W b_W w (r_W _ _ _ HXT) eq_refl Ww), L. reflexivity.
  - apply (label_of R b_R r (r_R _ _ _ HXT) eq_refl Rr).
Qed.

Definition g (r : nat) : nat := hd 0 (filter (fun w => rb w r) (sources PB es r)).

Definition rfs : list (nat * nat) := map (fun r => (g r, r)) (reads_of PB es).

Lemma sources_below : forall w r, In w (sources PB es r) -> w < n.
Proof. intros w r H. apply filter_In in H. apply es_below. tauto. Qed.

Lemma g_spec : forall r, In r (reads_of PB es) -> In (g r) (sources PB es r) /\ rf X (g r) r.
Proof.
  intros r Hr. apply filter_In in Hr. destruct Hr as [Hr Br].
  assert (Rr : R X r) by (apply (label_in R b_R r (r_R _ _ _ HXT) eq_refl); [apply es_iff|]; assumption).
  assert (Hrn : r < n) by (apply es_below; assumption).
  unfold g. destruct (filter (fun w => rb w r) (sources PB es r)) as [|w l] eqn:F.
  - exfalso. apply (wf_rf_total X Hwf r Rr). intros [w Hw].
    assert (Iw : In w (filter (fun w => rb w r) (sources PB es r))).
    { apply filter_In. split; [apply rf_in, Hw | apply Hrf0, Hw]. }
    rewrite F in Iw. exact Iw.
  - simpl. assert (Iw : In w (filter (fun w => rb w r) (sources PB es r))) by (rewrite F; left; reflexivity).
    apply filter_In in Iw. destruct Iw as [Iw B]. split; [exact Iw|].
    apply Hrf0. split; [apply (sources_below w r Iw) | split; assumption].
Qed.

Lemma Hrf1 : reflects n (rf X) (brel_of_list rfs).
Proof.
  intros w r. rewrite brel_of_list_true. unfold rfs. rewrite in_map_iff. split.
  - intro H. pose proof (proj1 (Hrf0 w r) H) as (Hw & Hr & _). split; [exact Hw | split; [exact Hr|]].
    exists r. destruct (rf_in w r H) as [_ Ir]. split; [|exact Ir].
    rewrite (wf_rf_unique X Hwf (g r) w r (proj2 (g_spec r Ir)) H). reflexivity.
  - intros (Hw & Hr & r' & Eq & Ir). injection Eq as <- <-. apply g_spec, Ir.
Qed.

Lemma rfs_in : In rfs (rf_choices n PB es).
Proof.
  apply filter_In. split.
  - apply choices_map. intros r Hr. apply (in_map (fun w => (w, r))), g_spec, Hr.
  - apply (guards_ok_dec n P PB X _ _ HP He1 Hrf1). apply Hrun.
Qed.

(* ---- co ---- *)

Lemma co_in : forall a b, co X a b -> In (a, b) (co_pairs PB es).
Proof.
  intros a b H.
  assert (S : (W X a /\ W X b) /\ loc X a b).
  { apply stable_and; [apply stable_and | |];
      [apply (stable_reflects_set _ _ _ (r_W _ _ _ HXT))
      | apply (stable_reflects_set _ _ _ (r_W _ _ _ HXT))
      | apply (stable_reflects _ _ _ (r_loc _ _ _ HXT))
      | apply (wf_co_shape X Hwf), H]. }
  assert (Ev : E X a /\ E X b).
  { apply stable_and; [apply (stable_reflects_set _ _ _ He0) | apply (stable_reflects_set _ _ _ He0)
      | apply (wf_in_events X Hwf); auto]. }
  destruct S as [[Wa Wb] L]. destruct Ev as [Ea Eb].
  apply (r_loc _ _ _ HXT) in L. destruct L as (_ & _ & L). simpl in L. unfold binter in L.
  apply andb_true_iff in L. destruct L as [L _].
  assert (Ne : Nat.eqb a b = false).
  { apply Nat.eqb_neq. intros ->. exact (wf_co_irreflexive X Hwf b H). }
  assert (Ib : b_IW (bpr PB) b = false).
  { destruct (b_IW (bpr PB) b) eqn:B; [exfalso|reflexivity].
    apply (wf_co_init_first X Hwf a b H). apply (label_in IW b_IW b (r_IW _ _ _ HXT) eq_refl Eb B). }
  apply filter_In. split; [apply in_prod; apply es_iff; assumption|]. simpl.
  rewrite Ne, (label_of W b_W a (r_W _ _ _ HXT) eq_refl Wa), (label_of W b_W b (r_W _ _ _ HXT) eq_refl Wb), L, Ib.
  reflexivity.
Qed.

Definition cos : list (nat * nat) := filter (fun p => cb (fst p) (snd p)) (co_pairs PB es).

Lemma Hco1 : reflects n (co X) (brel_of_list cos).
Proof.
  intros a b. rewrite brel_of_list_true. unfold cos. rewrite filter_In. split.
  - intro H. pose proof (proj1 (Hco0 a b) H) as (Ha & Hb & B). auto using co_in.
  - intros (Ha & Hb & _ & B). simpl in B. apply Hco0. auto.
Qed.

Lemma cos_in : In cos (co_choices n PB es).
Proof.
  apply filter_In. split; [apply subsets_filter|]. unfold co_transitive_b.
  apply (empty_dec (minus_reflects (seq_reflects Hco1 Hco1) Hco1)). apply wf_co_transitive, Hwf.
Qed.

(* A co list that mirrors X's co, among the choices an enumeration offers, gives X's candidate. *)
Lemma found_with : forall cochoices cos, reflects n (co X) (brel_of_list cos) -> In cos (cochoices es) ->
  In (execution n PB es rfs cos) (candidates_with n PB cochoices) /\ exec_reflects n X (execution n PB es rfs cos).
Proof.
  intros cochoices cs Hcs Hin. split.
  - unfold candidates_with. apply in_flat_map. exists es. split; [exact es_in|]. cbv beta zeta.
    apply in_flat_map. exists rfs. split; [exact rfs_in|]. apply in_map, Hin.
  - unfold execution. apply (exec_of_reflects n (pr P) (bpr PB) X);
      [apply HP | apply Hrun | apply He1 | apply Hrf1 | apply Hcs|].
    apply (reflects_same fr_same). apply seq_reflects; [apply inv_reflects, Hrf1 | apply Hcs].
Qed.

Lemma candidate_found :
  In (execution n PB es rfs cos) (candidates n PB) /\ exec_reflects n X (execution n PB es rfs cos).
Proof. exact (found_with (co_choices n PB) cos Hco1 cos_in). Qed.

(* ---- co, when it is total ---- *)

Section Total.
Hypothesis Htot : co_total X.

Lemma upair_facts : forall a b, In (a, b) (co_upairs PB es) ->
  a < b /\ E X a /\ E X b /\ W X a /\ W X b /\ (loc X a b \/ loc X b a).
Proof.
  intros a b H. apply filter_In in H. destruct H as [H B]. apply in_prod_iff in H.
  destruct H as [Ia Ib]. simpl in B. apply andb_true_iff in B. destruct B as [B L].
  apply andb_true_iff in B. destruct B as [B Wb]. apply andb_true_iff in B. destruct B as [Lt Wa].
  apply Nat.ltb_lt in Lt. apply es_iff in Ia. apply es_iff in Ib.
  assert (Loc : forall x y, E X x -> E X y -> b_loc (bpr PB) x y = true -> loc X x y).
  { intros x y Ex Ey Bl. apply (r_loc _ _ _ HXT).
    apply He0 in Ex. apply He0 in Ey. destruct Ex as [Hx Bx]. destruct Ey as [Hy By].
    split; [exact Hx | split; [exact Hy|]]. simpl. unfold binter, bcross. rewrite Bl, Bx, By. reflexivity. }
  repeat split; try assumption.
  - apply (label_in W b_W a (r_W _ _ _ HXT) eq_refl Ia Wa).
  - apply (label_in W b_W b (r_W _ _ _ HXT) eq_refl Ib Wb).
  - apply orb_true_iff in L. destruct L as [L|L]; [left | right]; apply Loc; assumption.
Qed.

Lemma upair_total : forall a b, In (a, b) (co_upairs PB es) -> ~ ~ (co X a b \/ co X b a).
Proof.
  intros a b H N. destruct (upair_facts a b H) as (Lt & Ea & Eb & Wa & Wb & L).
  assert (Id : wf_ax_id_def X) by (unfold wf_consistent in Hwf; tauto).
  assert (Ne : forall x y, x <> y -> ~ id X x y).
  { intros x y Ne I. apply (Id x y). left. split; [exact I|]. intros [_ Eq]. exact (Ne Eq). }
  destruct L as [L|L].
  - apply (Htot a b). split; [split; [split; [split; assumption | exact L] | apply Ne; lia] |].
    intros [C|C]; apply N; [left | right]; exact C.
  - apply (Htot b a). split; [split; [split; [split; assumption | exact L] | apply Ne; lia] |].
    intros [C|C]; apply N; [right | left]; exact C.
Qed.

Lemma co_asym : forall a b, co X a b -> ~ co X b a.
Proof.
  intros a b H1 H2. apply (wf_co_irreflexive X Hwf a). apply (stable_reflects _ _ _ Hco0).
  intro N. apply (wf_co_transitive X Hwf a a). split; [exists b; split; assumption | exact N].
Qed.

(* The direction X's co takes between the two writes of a pair. *)
Definition dir (p : nat * nat) : nat * nat := if cb (fst p) (snd p) then p else (snd p, fst p).

Definition tcos : list (nat * nat) := map dir (co_upairs PB es).

Lemma cb_co : forall a b, E X a -> E X b -> (co X a b <-> cb a b = true).
Proof. intros a b Ea Eb. apply Hcb; apply events_below; assumption. Qed.

Lemma dir_co : forall p, In p (co_upairs PB es) -> co X (fst (dir p)) (snd (dir p)).
Proof.
  intros [a b] Hp. destruct (upair_facts a b Hp) as (_ & Ea & Eb & _).
  unfold dir. simpl. destruct (cb a b) eqn:C; simpl; [apply cb_co; assumption|].
  apply (stable_reflects _ _ _ Hco0). intro N. apply (upair_total a b Hp). intros [H|H].
  - apply cb_co in H; [|assumption..]. rewrite H in C. discriminate.
  - exact (N H).
Qed.

Lemma dir_in : forall p, In p (co_upairs PB es) -> In (dir p) (co_directions PB p).
Proof.
  intros [a b] Hp. destruct (upair_facts a b Hp) as (_ & Ea & Eb & _).
  unfold co_directions, dir. simpl.
  destruct (b_IW (bpr PB) a) eqn:Ia.
  - assert (IWa : IW X a) by (apply (label_in IW b_IW a (r_IW _ _ _ HXT) eq_refl Ea Ia)).
    assert (C : co X a b).
    { apply (stable_reflects _ _ _ Hco0). intro N. apply (upair_total a b Hp). intros [H|H].
      - exact (N H).
      - exact (wf_co_init_first X Hwf b a H IWa). }
    apply cb_co in C; [|assumption..]. rewrite C. left. reflexivity.
  - destruct (b_IW (bpr PB) b) eqn:Ib.
    + assert (IWb : IW X b) by (apply (label_in IW b_IW b (r_IW _ _ _ HXT) eq_refl Eb Ib)).
      destruct (cb a b) eqn:C; [|left; reflexivity].
      exfalso. apply (wf_co_init_first X Hwf a b); [apply cb_co; assumption | exact IWb].
    + destruct (cb a b); simpl; auto.
Qed.

Lemma Htco : reflects n (co X) (brel_of_list tcos).
Proof.
  intros a b. rewrite brel_of_list_true. unfold tcos. rewrite in_map_iff. split.
  - intro H. pose proof (proj1 (Hco0 a b) H) as (Ha & Hb & B). split; [exact Ha | split; [exact Hb|]].
    pose proof (co_in a b H) as I. apply filter_In in I. destruct I as [I F].
    apply in_prod_iff in I. destruct I as [Ia Ib]. simpl in F.
    apply andb_true_iff in F. destruct F as [F _]. apply andb_true_iff in F. destruct F as [F L].
    apply andb_true_iff in F. destruct F as [F Wb]. apply andb_true_iff in F. destruct F as [Ne Wa].
    apply negb_true_iff, Nat.eqb_neq in Ne.
    destruct (Nat.lt_ge_cases a b) as [Lt|Ge].
    + exists (a, b). unfold dir. simpl. rewrite B. split; [reflexivity|].
      apply filter_In. split; [apply in_prod; assumption|]. simpl.
      rewrite (proj2 (Nat.ltb_lt a b) Lt), Wa, Wb, L. reflexivity.
    + exists (b, a). unfold dir. simpl.
      destruct (cb b a) eqn:C.
      { exfalso. apply (co_asym a b H). apply Hco0. split; [exact Hb | split; [exact Ha | exact C]]. }
      split; [reflexivity|].
      apply filter_In. split; [apply in_prod; assumption|]. simpl.
      rewrite (proj2 (Nat.ltb_lt b a) ltac:(lia)), Wa, Wb, L, orb_true_r. reflexivity.
  - intros (_ & _ & p & Eq & Hp). pose proof (dir_co p Hp) as C. rewrite Eq in C. exact C.
Qed.

Lemma tcos_in : In tcos (co_total_choices n PB es).
Proof.
  apply filter_In. split; [apply choices_map; intros p Hp; apply dir_in, Hp|].
  unfold co_transitive_b.
  apply (empty_dec (minus_reflects (seq_reflects Htco Htco) Htco)). apply wf_co_transitive, Hwf.
Qed.

Lemma total_candidate_found :
  In (execution n PB es rfs tcos) (total_candidates n PB) /\ exec_reflects n X (execution n PB es rfs tcos).
Proof. exact (found_with (co_total_choices n PB) tcos Htco tcos_in). Qed.

End Total.

End Complete.

(* Tables of X's events, rf, co and fr, under a double negation, for [candidate_found]. *)
Ltac tabulate_execution n X :=
  apply (tabulate_set n (E X)); intros [eb Heb];
  apply (tabulate n (rf X)); intros [rb Hrb];
  apply (tabulate n (co X)); intros [cb Hcb];
  apply (tabulate n (fr X)); intros [fb Hfb].

Theorem candidates_complete : forall n P PB X,
  program_reflects n P PB -> runs P X -> wf_consistent X ->
  ~ ~ exists XB, In XB (candidates n PB) /\ exec_reflects n X XB.
Proof.
  intros n P PB X HP Hrun Hwf K. tabulate_execution n X.
  apply K. eexists. eapply candidate_found; eassumption.
Qed.

(* A boolean check of every candidate proves a stable statement of every execution. *)
(* The argument of both: a stable Q, checked on every candidate of an enumeration that mirrors
   every execution satisfying S. *)
Lemma forall_candidates : forall n P (S Q : exec -> Prop) (q : bexec -> bool) (cands : list bexec),
  (forall X, runs P X -> wf_consistent X -> S X -> ~ ~ exists XB, In XB cands /\ exec_reflects n X XB) ->
  (forall X, stable (Q X)) ->
  (forall X XB, exec_reflects n X XB -> runs P X -> wf_consistent X -> q XB = true -> Q X) ->
  forallb q cands = true ->
  forall X, runs P X -> wf_consistent X -> S X -> Q X.
Proof.
  intros n P S Q q cands Hc HQ Hq Hall X Hrun Hwf HS. apply HQ. intro NQ.
  apply (Hc X Hrun Hwf HS). intros [XB [Hin HX]].
  apply NQ, (Hq X XB HX Hrun Hwf). rewrite forallb_forall in Hall. apply Hall, Hin.
Qed.

Theorem forall_executions : forall n P PB (Q : exec -> Prop) (q : bexec -> bool),
  program_reflects n P PB -> (forall X, stable (Q X)) ->
  (forall X XB, exec_reflects n X XB -> runs P X -> wf_consistent X -> q XB = true -> Q X) ->
  forallb q (candidates n PB) = true ->
  forall X, runs P X -> wf_consistent X -> Q X.
Proof.
  intros n P PB Q q HP HQ Hq Hall X Hrun Hwf.
  apply (forall_candidates n P (fun _ => True) Q q (candidates n PB)); auto.
  intros Y HR HW _. exact (candidates_complete n P PB Y HP HR HW).
Qed.

Theorem total_candidates_complete : forall n P PB X,
  program_reflects n P PB -> runs P X -> wf_consistent X -> co_total X ->
  ~ ~ exists XB, In XB (total_candidates n PB) /\ exec_reflects n X XB.
Proof.
  intros n P PB X HP Hrun Hwf Htot K. tabulate_execution n X.
  apply K. eexists. eapply total_candidate_found; eassumption.
Qed.

(* The same for the executions with a total co, from the total candidates. *)
Theorem forall_total_executions : forall n P PB (Q : exec -> Prop) (q : bexec -> bool),
  program_reflects n P PB -> (forall X, stable (Q X)) ->
  (forall X XB, exec_reflects n X XB -> runs P X -> wf_consistent X -> q XB = true -> Q X) ->
  forallb q (total_candidates n PB) = true ->
  forall X, runs P X -> wf_consistent X -> co_total X -> Q X.
Proof.
  intros n P PB Q q HP HQ Hq Hall.
  apply (forall_candidates n P co_total Q q (total_candidates n PB)); try assumption.
  intros Y HR HW HT. exact (total_candidates_complete n P PB Y HP HR HW HT).
Qed.

(* ------------------------------------------------------------------ *)
(* What the generated refutations use                                  *)

Lemma stable_True : stable True.
Proof. intros _. exact I. Qed.

Lemma stable_False : stable False.
Proof. intro H. apply H. intro f. exact f. Qed.

(* Goal: [stable A] for A built from /\, ->, ~, forall, True, False and definitions that unfold
   to them (empty, irreflexive, acyclic, set_empty, a model's race_free, …): look through
   definitions by head normalisation, never by computing on concrete data. *)
Ltac stable_tac :=
  lazymatch goal with
  | |- stable (_ /\ _) => apply stable_and; stable_tac
  | |- stable True => apply stable_True
  | |- stable False => apply stable_False
  | |- stable (forall _ : _, _) => apply stable_forall; intro; stable_tac
  | |- stable ?A =>
      let A' := eval hnf in A in
      tryif constr_eq A A' then fail "stable_tac: cannot see through" A
      else (change (stable A'); stable_tac)
  end.

(* A boolean implication that computes to true, read as an implication between what its two
   sides decide. *)
Lemma implb_dec : forall a c (A C : Prop),
  (a = true <-> A) -> (c = true <-> C) -> implb a c = true -> A -> C.
Proof.
  intros a c A C HA HC E HA'. apply HC. apply HA in HA'. rewrite HA' in E. exact E.
Qed.

(* ------------------------------------------------------------------ *)
(* Transport: two programs with the same guards on shared events       *)

(* A source program and its compilation share some events. When the shared events have the same
   guards in both programs, and the two executions read from the same writes, the same shared
   events are present in both: the "transport along programs" step of a compilation proof. The
   proof is by well-founded induction on the source's po, along which guard reads come first.

   [runs_transport] is stated with doubly negated hypotheses and conclusion, because that is what
   an exported statement gives: it writes each inclusion "a <= b" as [set_empty (set_minus a b)]
   or [empty (minus r s)], and without an axiom that gives only [~ ~ b x] from [a x], never
   [b x]. The obligations are negative ([empty], [irreflexive], [acyclic]), so a proof of them
   can strip the [~ ~] (see [nn_bind]). The helpers below reason under a double negation. *)

(* ---- Reasoning under a double negation ---- *)

Lemma nn_ret : forall A : Prop, A -> ~ ~ A.
Proof. intros A a N. exact (N a). Qed.

(* Under a goal ~ ~ B, a hypothesis ~ ~ A can be used as A. *)
Lemma nn_bind : forall A B : Prop, ~ ~ A -> (A -> ~ ~ B) -> ~ ~ B.
Proof. intros A B NNA F NB. apply NNA. intro a. exact (F a NB). Qed.

(* An implication whose conclusion holds doubly negated holds doubly negated. *)
Lemma nn_impl : forall A B : Prop, (A -> ~ ~ B) -> ~ ~ (A -> B).
Proof. intros A B F N. apply N. intro a. exfalso. apply (F a). intro b. apply N. intros _. exact b. Qed.

Lemma nn_iff : forall A B : Prop, (A -> ~ ~ B) -> (B -> ~ ~ A) -> ~ ~ (A <-> B).
Proof.
  intros A B F G. apply (nn_bind _ _ (nn_impl _ _ F)). intro f.
  apply (nn_bind _ _ (nn_impl _ _ G)). intro g. apply nn_ret. split; assumption.
Qed.

(* A set inclusion of the statement, used on one element. *)
Lemma nn_set_incl : forall (a b : set) x, set_empty (set_minus a b) -> a x -> ~ ~ b x.
Proof. intros a b x H Ha Nb. exact (H x (conj Ha Nb)). Qed.

(* A relation inclusion of the statement, used on one pair. *)
Lemma nn_incl : forall (r s : rel) x y, empty (minus r s) -> r x y -> ~ ~ s x y.
Proof. intros r s x y H Hr Ns. exact (H x y (conj Hr Ns)). Qed.

(* Double negation passes through a bounded quantifier (finite double-negation shift). *)
Lemma dns_bounded : forall m (A : nat -> Prop),
  (forall x, x < m -> ~ ~ A x) -> ~ ~ (forall x, x < m -> A x).
Proof.
  induction m as [|m IH]; intros A H.
  - apply nn_ret. intros x Hx. lia.
  - apply (nn_bind _ _ (IH A (fun x Hx => H x (Nat.lt_lt_succ_r _ _ Hx)))). intro Hm.
    apply (nn_bind _ _ (H m (Nat.lt_succ_diag_r m))). intro Am.
    apply nn_ret. intros x Hx. destruct (Nat.eq_dec x m) as [->|Ne]; [exact Am | apply Hm; lia].
Qed.

(* ---- Well-foundedness of po ---- *)

(* x is accessible when it lies r-below every element of a list l of distinct events below m, and
   l lacks at most k of m elements: each step down to a y adds x to the list, which can never
   hold more than m elements. *)
Lemma acc_chain : forall (r : rel) (m : nat),
  irreflexive r -> (forall a b c, r a b -> r b c -> r a c) ->
  (forall a b, r a b -> b < m) ->
  forall k x l, NoDup l -> (forall z, In z l -> z < m) -> (forall z, In z l -> r x z) ->
  m <= length l + k -> Acc r x.
Proof.
  intros r m Hirr Htr Hm k. induction k as [|k IH]; intros x l Hnd Hl Hx Hk; constructor; intros y Hy.
  - (* x :: l would be m + 1 distinct elements below m *)
    exfalso. assert (Hle : length (x :: l) <= length (upto m)).
    { apply NoDup_incl_length.
      - constructor; [intro Il; exact (Hirr x (Hx x Il)) | exact Hnd].
      - intros z [<-|Iz]; apply in_upto; [exact (Hm y x Hy) | exact (Hl z Iz)]. }
    rewrite length_upto in Hle. simpl in Hle. unfold event in Hle. lia.
  - apply (IH y (x :: l)).
    + constructor; [intro Il; exact (Hirr x (Hx x Il)) | exact Hnd].
    + intros z [<-|Iz]; [exact (Hm y x Hy) | exact (Hl z Iz)].
    + intros z [<-|Iz]; [exact Hy | exact (Htr y x z Hy (Hx z Iz))].
    + simpl. lia.
Qed.

(* An irreflexive, transitive relation between elements of a finite set is well founded. *)
Lemma po_well_founded : forall (r : rel) (s : set),
  set_finite s -> irreflexive r -> (forall a b c, r a b -> r b c -> r a c) ->
  (forall a b, r a b -> s a /\ s b) -> well_founded r.
Proof.
  intros r s [m Hs] Hirr Htr Hrs x.
  apply (acc_chain r m Hirr Htr (fun a b H => Hs b (proj2 (Hrs a b H))) m x []);
    [constructor | intros z [] | intros z [] | simpl; lia].
Qed.

(* Source Ps and target Pt agree on the shared events S, every source skeleton event being
   shared (doubly negated) and every shared event a target skeleton event: same guard reads and
   writes, guard reads po-earlier in the source, guard writes in the source skeleton. Executions
   of the two with the same rf then have the same source skeleton events. Every hypothesis is
   doubly negated where the exported statement gives it so. *)
Lemma runs_transport : forall (Ps Pt : program) (Xs Xt : exec) (S : set),
  set_finite (E (pr Ps)) ->
  irreflexive (po (pr Ps)) ->
  (forall a b c, po (pr Ps) a b -> po (pr Ps) b c -> ~ ~ po (pr Ps) a c) ->
  (forall a b, po (pr Ps) a b -> ~ ~ (E (pr Ps) a /\ E (pr Ps) b)) ->
  (forall r e, gread Ps r e -> ~ ~ po (pr Ps) r e) ->
  (forall w e, gwrite Ps w e -> ~ ~ E (pr Ps) w) ->
  (forall e, E (pr Ps) e -> ~ ~ S e) ->
  (forall e, S e -> E (pr Pt) e) ->
  (forall r e, S e -> gread Ps r e -> ~ ~ gread Pt r e) ->
  (forall r e, S e -> gread Pt r e -> ~ ~ gread Ps r e) ->
  (forall w e, S e -> gwrite Ps w e -> ~ ~ gwrite Pt w e) ->
  (forall w e, S e -> gwrite Pt w e -> ~ ~ gwrite Ps w e) ->
  same_rel (rf Xs) (rf Xt) ->
  runs Ps Xs -> runs Pt Xt ->
  forall e, E (pr Ps) e -> ~ ~ (E Xs e <-> E Xt e).
Proof.
  intros Ps Pt Xs Xt S [m Hm] Hirr Htr Hpo GrPo GwE HS HSt Grst Grts Gwst Gwts [Rf1 Rf2] [_ Hs] [_ Ht].
  (* the source events below the bound *)
  assert (Bound : forall x, ~ ~ E (pr Ps) x -> x < m).
  { intros x NN. apply stable_lt. intro N. apply NN. intro Ex. exact (N (Hm x Ex)). }
  (* a guard read of the source is in the skeleton *)
  assert (GrE : forall r e, gread Ps r e -> ~ ~ E (pr Ps) r).
  { intros r e G. apply (nn_bind _ _ (GrPo r e G)). intro P.
    apply (nn_bind _ _ (Hpo _ _ P)). intros [Er _]. apply nn_ret, Er. }
  (* the induction order: po of the source, doubly negated *)
  set (po' := fun a b => ~ ~ po (pr Ps) a b).
  assert (WF : well_founded po').
  { apply (po_well_founded po' (fun x => x < m)).
    - exists m. auto.
    - intros x Px. apply Px. apply Hirr.
    - intros a b c Pab Pbc. unfold po' in *.
      apply (nn_bind _ _ Pab). intro Ab. apply (nn_bind _ _ Pbc). intro Bc. exact (Htr a b c Ab Bc).
    - intros a b Pab. split; apply Bound; apply (nn_bind _ _ Pab); intro P;
        apply (nn_bind _ _ (Hpo _ _ P)); intros [Ea Eb]; apply nn_ret; assumption. }
  intro e. induction e as [e IH] using (well_founded_ind WF). intro Pe.
  apply (nn_bind _ _ (HS e Pe)). intro Se. pose proof (HSt e Se) as Te.
  (* guard reads and writes of e, in either program, lie below m *)
  assert (BGt : forall r, gread Pt r e -> r < m).
  { intros r G. apply Bound. apply (nn_bind _ _ (Grts r e Se G)). apply GrE. }
  assert (BWt : forall w, gwrite Pt w e -> w < m).
  { intros w G. apply Bound. apply (nn_bind _ _ (Gwts w e Se G)). apply GwE. }
  (* the guards of e agree below m *)
  assert (GR : ~ ~ (forall r, r < m -> (gread Ps r e <-> gread Pt r e))).
  { apply dns_bounded. intros r _. apply nn_iff; [apply Grst | apply Grts]; exact Se. }
  assert (GW : ~ ~ (forall w, w < m -> (gwrite Ps w e <-> gwrite Pt w e))).
  { apply dns_bounded. intros w _. apply nn_iff; [apply Gwst | apply Gwts]; exact Se. }
  (* the guard reads of e are present alike (induction hypothesis) *)
  assert (IHr : ~ ~ (forall r, r < m -> gread Ps r e -> (E Xs r <-> E Xt r))).
  { apply dns_bounded. intros r _. apply nn_impl. intro G.
    apply (nn_bind _ _ (GrE r e G)). intro Er. exact (IH r (GrPo r e G) Er). }
  apply (nn_bind _ _ GR). intro GR'. apply (nn_bind _ _ GW). intro GW'.
  apply (nn_bind _ _ IHr). intro IHr'. apply nn_ret.
  assert (BGs : forall r, gread Ps r e -> r < m) by (intros r G; apply Bound, (GrE r e G)).
  assert (BWs : forall w, gwrite Ps w e -> w < m) by (intros w G; apply Bound, (GwE w e G)).
  rewrite (Hs e Pe), (Ht e Te). unfold guards_hold. split; intros [G1 G2]; split.
  - intros r G. pose proof (BGt r G) as Br. apply (GR' r Br) in G. apply (IHr' r Br G), G1, G.
  - intros r w G Gw. pose proof (BGt r G) as Br. pose proof (BWt w Gw) as Bw.
    apply Rf1, G2; [apply (GR' r Br) | apply (GW' w Bw)]; assumption.
  - intros r G. pose proof (BGs r G) as Br. apply (IHr' r Br G), G1, (GR' r Br), G.
  - intros r w G Gw. pose proof (BGs r G) as Br. pose proof (BWs w Gw) as Bw.
    apply Rf2, G2; [apply (GR' r Br) | apply (GW' w Bw)]; assumption.
Qed.
