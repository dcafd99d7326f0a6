(* Mapcheck.Dec -- owned by the mapcheck Coq library (proofs-export/lib).

   Deciding the relational algebra of Mapcheck.Rel on a finite execution
   (events 0..n-1) by computation:
   - boolean mirrors [bset]/[brel] of every operator of Rel (bunion, bseq,
     btc, brtc, blfp, ...), with tabulation ([bvec], [bmat]) so that
     [vm_compute] evaluates each sub-relation once instead of once per lookup;
   - a reflection lemma [<op>_reflects] per operator, e.g.
       union_reflects : reflects n r1 b1 -> reflects n r2 b2 ->
                        reflects n (union r1 r2) (bunion b1 b2);
     all unconditional, including [tc_reflects] and [lfp_reflects];
   - deciding lemmas for the checks ([acyclic_dec], [irreflexive_dec],
     [empty_dec], [set_empty_dec]) and one-way forms ([acyclic_true],
     [acyclic_false], ...) used to prove a check holds or fails; inclusion
     and equality ([set_incl_dec], [inclusion_dec], [set_same_dec],
     [same_rel_dec]) and the mirror of a field cut to a set of events
     ([restrict_set_reflects], [restrict_rel_reflects]);
   - the tactics [reflect_tac], [mono_tac], [lfp_ctor_tac], [lfp_ind_tac],
     [lfp_bF_tac], [lfp_tac] and the hint database [mc_reflect].

   This file re-exports Mapcheck.Rel. It imports (but does not export) Coq's
   List; [seq] below is Rel.seq, the list one is written [List.seq]. *)

Require Import Coq.Lists.List Coq.Bool.Bool Coq.Arith.PeanoNat.
Require Export Mapcheck.Rel.

Definition bset := nat -> bool.
Definition brel := nat -> nat -> bool.
Definition upto (n : nat) : list nat := List.seq 0 n.

Definition reflects_set (n : nat) (s : set) (b : bset) : Prop :=
  forall x, s x <-> (x < n /\ b x = true).
Definition reflects (n : nat) (r : rel) (b : brel) : Prop :=
  forall x y, r x y <-> (x < n /\ y < n /\ b x y = true).

Definition set_of (n : nat) (b : bset) : set := fun x => x < n /\ b x = true.
Definition rel_of (n : nat) (b : brel) : rel := fun x y => x < n /\ y < n /\ b x y = true.

(* ------------------------------------------------------------------ *)
(* Boolean mirrors                                                     *)

(* Tabulation. Under vm_compute (call by value) the [let] is evaluated once
   when [bvec n s] / [bmat n r] is evaluated as a value (e.g. as the argument
   of another operator); lookups then cost O(n). *)
Definition bvec (n : nat) (s : bset) : bset :=
  let t := map s (upto n) in
  fun x => nth x t false.

Definition bmat (n : nat) (r : brel) : brel :=
  let l := upto n in
  let t := map (fun x => map (r x) l) l in
  fun x y => nth y (nth x t nil) false.

(* Concrete relations and sets from lists (for executions). *)
Definition brel_of_list (l : list (nat * nat)) : brel :=
  fun x y => existsb (fun p => Nat.eqb (fst p) x && Nat.eqb (snd p) y) l.
Definition bset_of_list (l : list nat) : bset :=
  fun x => existsb (Nat.eqb x) l.
Definition ball : bset := fun _ => true.

Definition bset0 : bset := fun _ => false.
Definition bset_union (a b : bset) : bset := fun x => a x || b x.
Definition bset_inter (a b : bset) : bset := fun x => a x && b x.
Definition bset_minus (a b : bset) : bset := fun x => a x && negb (b x).
Definition bset_compl (u a : bset) : bset := fun x => u x && negb (a x).
Definition bdomain (n : nat) (r : brel) : bset :=
  let l := upto n in bvec n (fun x => existsb (r x) l).
Definition brange (n : nat) (r : brel) : bset :=
  let l := upto n in bvec n (fun y => existsb (fun x => r x y) l).

Definition brel0 : brel := fun _ _ => false.
Definition bunion (r s : brel) : brel := fun x y => r x y || s x y.
Definition binter (r s : brel) : brel := fun x y => r x y && s x y.
Definition bminus (r s : brel) : brel := fun x y => r x y && negb (s x y).
(* [dot u v]: some position true in both lists. *)
Fixpoint dot (u v : list bool) : bool :=
  match u, v with
  | a :: u', b :: v' => (a && b) || dot u' v'
  | _, _ => false
  end.
(* r;s via the rows of r and the columns of s, each tabulated once:
   O(n^2) lookups and O(n^3) boolean steps. *)
Definition bseq (n : nat) (r s : brel) : brel :=
  let l := upto n in
  let rows := map (fun x => map (r x) l) l in
  let cols := map (fun y => map (fun z => s z y) l) l in
  let t := map (fun rx => map (dot rx) cols) rows in
  fun x y => nth y (nth x t nil) false.
Definition binv (r : brel) : brel := fun x y => r y x.
Definition bid_on (a : bset) : brel := fun x y => a x && Nat.eqb x y.
Definition bcross (a b : bset) : brel := fun x y => a x && b y.
Definition bcompl (u : bset) (r : brel) : brel := fun x y => u x && u y && negb (r x y).

Definition bsubset (n : nat) (r s : brel) : bool :=
  let l := upto n in
  forallb (fun x => forallb (fun y => implb (r x y) (s x y)) l) l.

(* Kleene iteration from [b], each step tabulated, stopping as soon as a
   step adds nothing. *)
Fixpoint kiter (n k : nat) (bF : brel -> brel) (b : brel) : brel :=
  match k with
  | O => b
  | S k' =>
      let b' := bmat n (bF b) in
      if bsubset n b' b then b else kiter n k' bF b'
  end.

(* At most k Kleene steps from brel0 (fewer if a fixpoint is reached). *)
Definition kleene (n k : nat) (bF : brel -> brel) : brel := kiter n k bF brel0.

(* n*n+1 steps always suffice (see lfp_reflects). *)
Definition blfp (n : nat) (bF : brel -> brel) : brel := kleene n (S (n * n)) bF.

(* r+ as the least fixpoint of t = r | t;t (log n squaring steps). *)
Definition btc (n : nat) (r : brel) : brel :=
  let r' := bmat n r in blfp n (fun t => bunion r' (bseq n t t)).

Definition brtc (n : nat) (u : bset) (r : brel) : brel :=
  let t := btc n r in bmat n (fun x y => u y && (Nat.eqb x y || t x y)).

Definition bopt (u : bset) (r : brel) : brel := bunion (bid_on u) r.

Definition birreflexive (n : nat) (r : brel) : bool :=
  forallb (fun x => negb (r x x)) (upto n).
Definition bacyclic (n : nat) (r : brel) : bool := birreflexive n (btc n r).
Definition bempty (n : nat) (r : brel) : bool :=
  let l := upto n in forallb (fun x => forallb (fun y => negb (r x y)) l) l.
Definition bset_empty (n : nat) (s : bset) : bool :=
  forallb (fun x => negb (s x)) (upto n).

(* Inclusion and equality of sets and relations over 0..n-1. *)
Definition bset_subset (n : nat) (a b : bset) : bool :=
  forallb (fun x => implb (a x) (b x)) (upto n).
Definition bset_eq (n : nat) (a b : bset) : bool := bset_subset n a b && bset_subset n b a.
Definition brel_eq (n : nat) (r s : brel) : bool := bsubset n r s && bsubset n s r.

(* ------------------------------------------------------------------ *)
(* List facts                                                          *)

Lemma in_upto : forall n x, In x (upto n) <-> x < n.
Proof.
  intros n x; unfold upto; rewrite in_seq; simpl; split;
    [intros [_ H]; exact H | intro H; split; [apply Nat.le_0_l | exact H]].
Qed.

Lemma forallb_upto : forall n (f : nat -> bool),
  forallb f (upto n) = true <-> (forall x, x < n -> f x = true).
Proof.
  intros n f; rewrite forallb_forall; split; intros H x Hx; apply H, in_upto; assumption.
Qed.

Lemma existsb_upto : forall n (f : nat -> bool),
  existsb f (upto n) = true <-> (exists x, x < n /\ f x = true).
Proof.
  intros n f; rewrite existsb_exists; split; intros [x [Hx E]]; exists x;
    (split; [apply in_upto | ]); assumption.
Qed.

Lemma forallb_false : forall A (f : A -> bool) l,
  forallb f l = false -> exists x, In x l /\ f x = false.
Proof.
  intros A f l; induction l as [|a l IH]; simpl; [discriminate|].
  destruct (f a) eqn:E; simpl.
  - intro H; destruct (IH H) as [x [Hx Ex]]; eauto.
  - intros _; eauto.
Qed.

Lemma bset_of_list_true : forall l x, bset_of_list l x = true <-> In x l.
Proof.
  intros l x; unfold bset_of_list; rewrite existsb_exists; split.
  - intros [y [Hy E]]; apply Nat.eqb_eq in E; subst; assumption.
  - intro H; exists x; split; [assumption | apply Nat.eqb_refl].
Qed.

Lemma brel_of_list_true : forall l x y, brel_of_list l x y = true <-> In (x, y) l.
Proof.
  intros l x y; unfold brel_of_list; rewrite existsb_exists; split.
  - intros [[a b] [Hp E]]; simpl in E; apply andb_true_iff in E; destruct E as [E1 E2].
    apply Nat.eqb_eq in E1; apply Nat.eqb_eq in E2; subst; assumption.
  - intro H; exists (x, y); simpl; rewrite !Nat.eqb_refl; auto.
Qed.

Lemma length_upto : forall n, length (upto n) = n.
Proof. intro; apply seq_length. Qed.

Lemma nth_upto : forall n x d, x < n -> nth x (upto n) d = x.
Proof. intros; unfold upto; rewrite seq_nth by assumption; reflexivity. Qed.

(* ------------------------------------------------------------------ *)
(* Tabulation is correct                                               *)

Lemma nth_map_upto : forall A (f : nat -> A) n x d, x < n -> nth x (map f (upto n)) d = f x.
Proof.
  intros A f n x d Hx.
  rewrite (nth_indep _ d (f 0)) by (rewrite map_length, length_upto; assumption).
  rewrite map_nth, nth_upto by assumption; reflexivity.
Qed.

Lemma bvec_correct : forall n s x, x < n -> bvec n s x = s x.
Proof. intros n s x Hx; unfold bvec; cbv beta zeta; apply nth_map_upto; assumption. Qed.

Lemma bmat_correct : forall n r x y, x < n -> y < n -> bmat n r x y = r x y.
Proof.
  intros n r x y Hx Hy; unfold bmat; cbv beta zeta.
  rewrite (nth_map_upto _ (fun x => map (r x) (upto n))) by assumption.
  apply nth_map_upto; assumption.
Qed.

Lemma bseq_correct : forall n r s x y, x < n -> y < n ->
  bseq n r s x y = existsb (fun z => r x z && s z y) (upto n).
Proof.
  intros n r s x y Hx Hy; unfold bseq; cbv beta zeta.
  rewrite map_map, nth_map_upto by assumption.
  rewrite map_map, nth_map_upto by assumption.
  generalize (upto n); intro l; induction l as [|z l IH]; simpl; [reflexivity|].
  rewrite IH; reflexivity.
Qed.

Lemma bsubset_true : forall n r s,
  bsubset n r s = true <-> (forall x y, x < n -> y < n -> r x y = true -> s x y = true).
Proof.
  intros n r s; unfold bsubset; cbv beta zeta; rewrite forallb_upto; split.
  - intros H x y Hx Hy E; specialize (H x Hx); rewrite forallb_upto in H.
    specialize (H y Hy); rewrite E in H; exact H.
  - intros H x Hx; apply forallb_upto; intros y Hy.
    destruct (r x y) eqn:E; simpl; [apply H|]; auto.
Qed.

Lemma bsubset_false : forall n r s, bsubset n r s = false ->
  exists x y, x < n /\ y < n /\ r x y = true /\ s x y = false.
Proof.
  intros n r s; unfold bsubset; cbv beta zeta; intro H.
  destruct (forallb_false _ _ _ H) as [x [Hx Ex]].
  destruct (forallb_false _ _ _ Ex) as [y [Hy Ey]].
  apply in_upto in Hx; apply in_upto in Hy.
  exists x, y; destruct (r x y), (s x y); simpl in Ey; try discriminate; auto.
Qed.

(* ------------------------------------------------------------------ *)
(* Reflection: basics                                                  *)

Section Reflect.
Context {n : nat}.

Lemma rel_of_reflects : forall b, reflects n (rel_of n b) b.
Proof. intros b x y; unfold rel_of; tauto. Qed.

Lemma set_of_reflects : forall b, reflects_set n (set_of n b) b.
Proof. intros b x; unfold set_of; tauto. Qed.

Lemma reflects_in : forall r b x y, reflects n r b -> r x y -> x < n /\ y < n.
Proof. intros r b x y H R; apply H in R; tauto. Qed.

Lemma reflects_set_in : forall s b x, reflects_set n s b -> s x -> x < n.
Proof. intros s b x H S; apply H in S; tauto. Qed.

(* Changing either side of a reflection. *)
Lemma reflects_same : forall r1 r2 b, same_rel r1 r2 -> reflects n r1 b -> reflects n r2 b.
Proof. unfold reflects, reflects_set in *; intros r1 r2 b [H1 H2] H x y; split; intro R; [apply H, H2 | apply H1, H]; exact R. Qed.

Lemma reflects_bext : forall r b1 b2,
  (forall x y, x < n -> y < n -> b1 x y = b2 x y) -> reflects n r b1 -> reflects n r b2.
Proof.
  unfold reflects, reflects_set in *; intros r b1 b2 E H x y; rewrite H; split; intros (Hx & Hy & B);
    (split; [|split]); auto; [rewrite <- E | rewrite E]; auto.
Qed.

Lemma reflects_set_same : forall s1 s2 b, set_same s1 s2 -> reflects_set n s1 b -> reflects_set n s2 b.
Proof. unfold reflects, reflects_set in *; intros s1 s2 b [H1 H2] H x; split; intro R; [apply H, H2 | apply H1, H]; exact R. Qed.

Lemma reflects_set_bext : forall s b1 b2,
  (forall x, x < n -> b1 x = b2 x) -> reflects_set n s b1 -> reflects_set n s b2.
Proof.
  unfold reflects, reflects_set in *; intros s b1 b2 E H x; rewrite H; split; intros (Hx & B); split; auto;
    [rewrite <- E | rewrite E]; auto.
Qed.

(* Two relations reflected by the same boolean are equal. *)
Lemma reflects_unique : forall r1 r2 b, reflects n r1 b -> reflects n r2 b -> same_rel r1 r2.
Proof. unfold reflects, reflects_set in *; intros r1 r2 b H1 H2; split; intros x y R; [apply H2, H1 | apply H1, H2]; assumption. Qed.

Lemma bmat_reflects : forall r b, reflects n r b -> reflects n r (bmat n b).
Proof.
  unfold reflects, reflects_set in *; intros r b H; apply reflects_bext with (b1 := b); [|assumption].
  intros; symmetry; apply bmat_correct; assumption.
Qed.

Lemma bvec_reflects : forall s b, reflects_set n s b -> reflects_set n s (bvec n b).
Proof.
  unfold reflects, reflects_set in *; intros s b H; apply reflects_set_bext with (b1 := b); [|assumption].
  intros; symmetry; apply bvec_correct; assumption.
Qed.

(* ------------------------------------------------------------------ *)
(* Reflection: sets                                                    *)

Lemma set0_reflects : reflects_set n set0 bset0.
Proof. intro x; unfold set0, bset0; split; [tauto | intros (_ & E); discriminate]. Qed.

Lemma set_union_reflects : forall s1 s2 b1 b2,
  reflects_set n s1 b1 -> reflects_set n s2 b2 ->
  reflects_set n (set_union s1 s2) (bset_union b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros s1 s2 b1 b2 H1 H2 x; unfold set_union, bset_union;
    rewrite H1, H2, orb_true_iff; tauto.
Qed.

Lemma set_inter_reflects : forall s1 s2 b1 b2,
  reflects_set n s1 b1 -> reflects_set n s2 b2 ->
  reflects_set n (set_inter s1 s2) (bset_inter b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros s1 s2 b1 b2 H1 H2 x; unfold set_inter, bset_inter;
    rewrite H1, H2, andb_true_iff; tauto.
Qed.

Lemma set_minus_reflects : forall s1 s2 b1 b2,
  reflects_set n s1 b1 -> reflects_set n s2 b2 ->
  reflects_set n (set_minus s1 s2) (bset_minus b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros s1 s2 b1 b2 H1 H2 x; unfold set_minus, bset_minus;
    rewrite H1, H2, andb_true_iff, negb_true_iff, <- not_true_iff_false; tauto.
Qed.

Lemma set_compl_reflects : forall U u s b,
  reflects_set n U u -> reflects_set n s b ->
  reflects_set n (set_compl U s) (bset_compl u b).
Proof.
  unfold reflects, reflects_set in *; intros U u s b H1 H2 x; unfold set_compl, bset_compl;
    rewrite H1, H2, andb_true_iff, negb_true_iff, <- not_true_iff_false; tauto.
Qed.

Lemma domain_reflects : forall r b, reflects n r b -> reflects_set n (domain r) (bdomain n b).
Proof.
  unfold reflects, reflects_set in *; intros r b H x; unfold domain, bdomain; cbv beta zeta; split.
  - intros [y R]; apply H in R; destruct R as (Hx & Hy & E).
    split; [assumption|]; rewrite bvec_correct by assumption.
    apply existsb_upto; eauto.
  - intros [Hx E]; rewrite bvec_correct in E by assumption.
    apply existsb_upto in E; destruct E as [y [Hy E]].
    exists y; apply H; auto.
Qed.

Lemma range_reflects : forall r b, reflects n r b -> reflects_set n (range r) (brange n b).
Proof.
  unfold reflects, reflects_set in *; intros r b H y; unfold range, brange; cbv beta zeta; split.
  - intros [x R]; apply H in R; destruct R as (Hx & Hy & E).
    split; [assumption|]; rewrite bvec_correct by assumption.
    apply existsb_upto; eauto.
  - intros [Hy E]; rewrite bvec_correct in E by assumption.
    apply existsb_upto in E; destruct E as [x [Hx E]].
    exists x; apply H; auto.
Qed.

(* ------------------------------------------------------------------ *)
(* Reflection: relations                                               *)

Lemma rel0_reflects : reflects n rel0 brel0.
Proof. unfold reflects, reflects_set in *; intros x y; unfold rel0, brel0; split; [tauto | intros (_ & _ & E); discriminate]. Qed.

Lemma union_reflects : forall r1 r2 b1 b2,
  reflects n r1 b1 -> reflects n r2 b2 -> reflects n (union r1 r2) (bunion b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros r1 r2 b1 b2 H1 H2 x y; unfold union, bunion;
    rewrite H1, H2, orb_true_iff; tauto.
Qed.

Lemma inter_reflects : forall r1 r2 b1 b2,
  reflects n r1 b1 -> reflects n r2 b2 -> reflects n (inter r1 r2) (binter b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros r1 r2 b1 b2 H1 H2 x y; unfold inter, binter;
    rewrite H1, H2, andb_true_iff; tauto.
Qed.

Lemma minus_reflects : forall r1 r2 b1 b2,
  reflects n r1 b1 -> reflects n r2 b2 -> reflects n (minus r1 r2) (bminus b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros r1 r2 b1 b2 H1 H2 x y; unfold minus, bminus;
    rewrite H1, H2, andb_true_iff, negb_true_iff, <- not_true_iff_false; tauto.
Qed.

Lemma seq_reflects : forall r1 r2 b1 b2,
  reflects n r1 b1 -> reflects n r2 b2 -> reflects n (seq r1 r2) (bseq n b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros r1 r2 b1 b2 H1 H2 x y; unfold seq; split.
  - intros [z [A B]]; apply H1 in A; apply H2 in B.
    destruct A as (Hx & Hz & A); destruct B as (_ & Hy & B).
    split; [|split]; try assumption.
    rewrite bseq_correct by assumption; apply existsb_upto.
    exists z; rewrite A, B; auto.
  - intros (Hx & Hy & E); rewrite bseq_correct in E by assumption.
    apply existsb_upto in E; destruct E as [z [Hz E]]; apply andb_true_iff in E.
    exists z; rewrite H1, H2; tauto.
Qed.

Lemma inv_reflects : forall r b, reflects n r b -> reflects n (inv r) (binv b).
Proof. unfold reflects, reflects_set in *; intros r b H x y; unfold inv, binv; rewrite H; tauto. Qed.

Lemma id_on_reflects : forall a b, reflects_set n a b -> reflects n (id_on a) (bid_on b).
Proof.
  unfold reflects, reflects_set in *; intros a b H x y; unfold id_on, bid_on; rewrite H, andb_true_iff, Nat.eqb_eq.
  split; [intros [[Hx B] E]; subst | intros (Hx & Hy & B & E)]; tauto.
Qed.

Lemma cross_reflects : forall a1 a2 b1 b2,
  reflects_set n a1 b1 -> reflects_set n a2 b2 -> reflects n (cross a1 a2) (bcross b1 b2).
Proof.
  unfold reflects, reflects_set in *; intros a1 a2 b1 b2 H1 H2 x y; unfold cross, bcross;
    rewrite H1, H2, andb_true_iff; tauto.
Qed.

Lemma compl_reflects : forall U u r b,
  reflects_set n U u -> reflects n r b -> reflects n (compl U r) (bcompl u b).
Proof.
  unfold reflects, reflects_set in *; intros U u r b HU H x y; unfold compl, bcompl;
    rewrite !HU, H, !andb_true_iff, negb_true_iff, <- not_true_iff_false; tauto.
Qed.

End Reflect.

(* ------------------------------------------------------------------ *)
(* Least fixpoints                                                     *)

Definition count (n : nat) (b : brel) : nat :=
  length (filter (fun p => b (fst p) (snd p)) (list_prod (upto n) (upto n))).

Lemma filter_length_le : forall A (f : A -> bool) l, length (filter f l) <= length l.
Proof.
  intros A f l; induction l as [|a l IH]; simpl; [apply le_n|].
  destruct (f a); simpl; [apply le_n_S, IH | apply le_S, IH].
Qed.

Lemma filter_length_mono : forall A (f g : A -> bool) l,
  (forall p, In p l -> f p = true -> g p = true) ->
  length (filter f l) <= length (filter g l).
Proof.
  intros A f g l; induction l as [|a l IH]; simpl; intro H; [apply le_n|].
  assert (IH' := IH (fun p Hp => H p (or_intror Hp))).
  destruct (f a) eqn:Ef; [rewrite (H a (or_introl eq_refl) Ef)|destruct (g a)]; simpl;
    first [apply le_n_S, IH' | apply le_S, IH' | exact IH'].
Qed.

Lemma filter_length_lt : forall A (f g : A -> bool) l,
  (forall p, In p l -> f p = true -> g p = true) ->
  (exists p, In p l /\ f p = false /\ g p = true) ->
  length (filter f l) < length (filter g l).
Proof.
  intros A f g l; induction l as [|a l IH]; simpl; intros H [p [Hp [Fp Gp]]]; [contradiction|].
  assert (M := filter_length_mono A f g l (fun p Hp => H p (or_intror Hp))).
  destruct Hp as [Hp|Hp].
  - subst p; rewrite Fp, Gp; simpl; unfold lt; apply le_n_S, M.
  - assert (IH' := IH (fun p Hp => H p (or_intror Hp)) (ex_intro _ p (conj Hp (conj Fp Gp)))).
    unfold lt in *.
    destruct (f a) eqn:Ef; [rewrite (H a (or_introl eq_refl) Ef)|destruct (g a)]; simpl;
      first [apply le_n_S, IH' | apply le_S, IH' | exact IH'].
Qed.

Lemma count_le : forall n b, count n b <= n * n.
Proof.
  intros n b; unfold count.
  rewrite <- (length_upto n) at 3 4; rewrite <- prod_length.
  apply filter_length_le.
Qed.

(* The Kleene iteration, for a monotone [F] with constructors for [I] and a
   mirror [bF]: its result is included in [I] and is a fixpoint. The
   measure: each step that does not stop adds a pair, and there are n*n. *)
Lemma kiter_spec : forall n (I : rel) (F : rel -> rel) (bF : brel -> brel),
  (forall r s, inclusion r s -> inclusion (F r) (F s)) ->
  (forall x y, F I x y -> I x y) ->
  (forall r b, reflects n r b -> reflects n (F r) (bF b)) ->
  forall k b,
  inclusion (rel_of n b) I ->
  inclusion (rel_of n b) (rel_of n (bF b)) ->
  n * n < count n b + k ->
  inclusion (rel_of n (kiter n k bF b)) I /\
  bsubset n (bF (kiter n k bF b)) (kiter n k bF b) = true.
Proof.
  intros n I F bF Fmono Fctor Fref.
  assert (Fb : forall b x y, F (rel_of n b) x y <-> (x < n /\ y < n /\ bF b x y = true)).
  { intro b; apply Fref, rel_of_reflects. }
  induction k as [|k IH]; intros b HI Hinc Hc.
  - exfalso; rewrite Nat.add_0_r in Hc.
    apply (Nat.lt_irrefl (n * n)); eapply Nat.lt_le_trans; [exact Hc | apply count_le].
  - cbn [kiter]; destruct (bsubset n (bmat n (bF b)) b) eqn:E.
    + split; [assumption|].
      apply bsubset_true; intros x y Hx Hy B.
      rewrite bsubset_true in E; apply E; try rewrite bmat_correct; assumption.
    + (* b' := bmat n (bF b) strictly grows *)
      assert (Hb' : inclusion (rel_of n (bmat n (bF b))) (F (rel_of n b))).
      { intros x y (Hx & Hy & B); rewrite bmat_correct in B by assumption.
        apply Fb; auto. }
      assert (Hsub : inclusion (rel_of n b) (rel_of n (bmat n (bF b)))).
      { intros x y R; destruct (Hinc x y R) as (Hx & Hy & B).
        split; [|split]; try rewrite bmat_correct; assumption. }
      apply IH.
      * intros x y R; apply Fctor; eapply Fmono; [exact HI | apply Hb'; exact R].
      * intros x y R; apply Fb; eapply Fmono; [exact Hsub | apply Hb'; exact R].
      * cut (count n b < count n (bmat n (bF b))).
        { intro Hlt; apply (Nat.le_lt_trans _ (count n b + k)).
          - apply Nat.lt_succ_r; rewrite <- Nat.add_succ_r; exact Hc.
          - apply Nat.add_lt_mono_r; exact Hlt. }
        apply filter_length_lt.
        -- intros [x y] Hp B; simpl in *; apply in_prod_iff in Hp.
           destruct Hp as [Hx Hy]; apply in_upto in Hx; apply in_upto in Hy.
           apply Hsub; unfold rel_of; auto.
        -- destruct (bsubset_false _ _ _ E) as (x & y & Hx & Hy & B1 & B2).
           exists (x, y); simpl; split; [apply in_prod; apply in_upto; assumption|].
           split; assumption.
Qed.

Lemma kleene_spec : forall n (I : rel) (F : rel -> rel) (bF : brel -> brel),
  (forall r s, inclusion r s -> inclusion (F r) (F s)) ->
  (forall x y, F I x y -> I x y) ->
  (forall r b, reflects n r b -> reflects n (F r) (bF b)) ->
  inclusion (rel_of n (kleene n (S (n * n)) bF)) I /\
  bsubset n (bF (kleene n (S (n * n)) bF)) (kleene n (S (n * n)) bF) = true.
Proof.
  intros n I F bF Fmono Fctor Fref.
  apply (kiter_spec n I F bF Fmono Fctor Fref).
  - intros x y (_ & _ & E); discriminate.
  - intros x y (_ & _ & E); discriminate.
  - rewrite Nat.add_succ_r; apply Nat.lt_succ_r, Nat.le_add_l.
Qed.

(* The boolean least fixpoint reflects the inductive [I], given that [I] is
   the least fixpoint of the monotone [F] (constructors + induction), and
   that [bF] mirrors [F]. Unconditional: no computed premise. *)
Lemma lfp_reflects : forall n (I : rel) (F : rel -> rel) (bF : brel -> brel),
  (forall r s, inclusion r s -> inclusion (F r) (F s)) ->
  (forall x y, F I x y -> I x y) ->
  (forall R, inclusion (F R) R -> inclusion I R) ->
  (forall r b, reflects n r b -> reflects n (F r) (bF b)) ->
  reflects n I (blfp n bF).
Proof.
  intros n I F bF Fmono Fctor Find Fref.
  destruct (kleene_spec n I F bF Fmono Fctor Fref) as [H1 H2].
  unfold blfp; set (t := kleene n (S (n * n)) bF) in *.
  intros x y; split.
  - intro Ixy; apply (Find (rel_of n t)); [|assumption].
    intros u v Fuv; apply (Fref _ _ (rel_of_reflects t)) in Fuv.
    destruct Fuv as (Hu & Hv & B); split; [|split]; try assumption.
    rewrite bsubset_true in H2; apply H2; assumption.
  - intro R; apply H1; exact R.
Qed.

(* Variant with the fixpoint check as a computed premise (not needed; kept
   for callers that prefer it). *)
Lemma lfp_reflects_chk : forall n (I : rel) (F : rel -> rel) (bF : brel -> brel),
  (forall r s, inclusion r s -> inclusion (F r) (F s)) ->
  (forall x y, F I x y -> I x y) ->
  (forall R, inclusion (F R) R -> inclusion I R) ->
  (forall r b, reflects n r b -> reflects n (F r) (bF b)) ->
  bsubset n (bF (blfp n bF)) (blfp n bF) = true ->
  reflects n I (blfp n bF).
Proof. intros n I F bF H1 H2 H3 H4 _; exact (lfp_reflects n I F bF H1 H2 H3 H4). Qed.

(* ------------------------------------------------------------------ *)
(* Closures                                                            *)

Section Closures.
Context {n : nat}.

Lemma tc_reflects : forall r b, reflects n r b -> reflects n (tc r) (btc n b).
Proof.
  intros r b H; unfold btc; cbv zeta.
  apply (lfp_reflects n (tc r) (fun R => union r (seq R R))).
  - intros r1 r2 Hr; apply union_mono; [apply incl_refl | apply seq_mono; assumption].
  - intros x y [A|A]; [apply tc_once; assumption | apply tc_seq_incl; assumption].
  - intros R HR; apply tc_lfp; intros x y A; apply HR; [left | right]; assumption.
  - intros r' b' H'; apply union_reflects; [apply bmat_reflects | apply seq_reflects]; assumption.
Qed.

Lemma rtc_reflects : forall U u r b,
  reflects_set n U u -> reflects n r b -> reflects n (rtc U r) (brtc n u b).
Proof.
  intros U u r b HU H x y; pose proof (tc_reflects r b H) as T.
  rewrite rtc_tc; unfold brtc; cbv zeta; split.
  - intros [Uy [E|Txy]].
    + subst; apply HU in Uy; destruct Uy as [Hy Uy].
      split; [|split]; try assumption; rewrite bmat_correct by assumption.
      rewrite Uy, Nat.eqb_refl; reflexivity.
    + apply HU in Uy; destruct Uy as [Hy Uy]; apply T in Txy; destruct Txy as (Hx & _ & B).
      split; [|split]; try assumption; rewrite bmat_correct by assumption.
      rewrite Uy, B, orb_true_r; reflexivity.
  - intros (Hx & Hy & B); rewrite bmat_correct in B by assumption.
    apply andb_true_iff in B; destruct B as [Uy B].
    split; [apply HU; auto|].
    apply orb_true_iff in B; destruct B as [B|B].
    + left; apply Nat.eqb_eq; assumption.
    + right; apply T; auto.
Qed.

Lemma opt_reflects : forall U u r b,
  reflects_set n U u -> reflects n r b -> reflects n (opt U r) (bopt u b).
Proof.
  intros; unfold opt, bopt; apply union_reflects; [apply id_on_reflects|]; assumption.
Qed.

(* ------------------------------------------------------------------ *)
(* Deciding the checks                                                 *)

Lemma irreflexive_dec : forall r b, reflects n r b ->
  (birreflexive n b = true <-> irreflexive r).
Proof.
  intros r b H; unfold birreflexive, irreflexive; rewrite forallb_upto; split.
  - intros B x R; apply H in R; destruct R as (Hx & _ & E).
    specialize (B x Hx); rewrite E in B; discriminate.
  - intros Irr x Hx; destruct (b x x) eqn:E; [|reflexivity].
    exfalso; apply (Irr x), H; auto.
Qed.

Lemma acyclic_dec : forall r b, reflects n r b -> (bacyclic n b = true <-> acyclic r).
Proof. intros r b H; unfold bacyclic, acyclic; apply irreflexive_dec, tc_reflects, H. Qed.

Lemma empty_dec : forall r b, reflects n r b -> (bempty n b = true <-> empty r).
Proof.
  intros r b H; unfold bempty, empty; cbv zeta; rewrite forallb_upto; split.
  - intros B x y R; apply H in R; destruct R as (Hx & Hy & E).
    specialize (B x Hx); rewrite forallb_upto in B; specialize (B y Hy).
    rewrite E in B; discriminate.
  - intros Em x Hx; apply forallb_upto; intros y Hy.
    destruct (b x y) eqn:E; [|reflexivity].
    exfalso; apply (Em x y), H; auto.
Qed.

Lemma set_empty_dec : forall s b, reflects_set n s b -> (bset_empty n b = true <-> set_empty s).
Proof.
  intros s b H; unfold bset_empty, set_empty; rewrite forallb_upto; split.
  - intros B x S; apply H in S; destruct S as (Hx & E).
    specialize (B x Hx); rewrite E in B; discriminate.
  - intros Em x Hx; destruct (b x) eqn:E; [|reflexivity].
    exfalso; apply (Em x), H; auto.
Qed.

(* One-way forms: a check holds / fails by computation. *)
Lemma acyclic_true : forall r b, reflects n r b -> bacyclic n b = true -> acyclic r.
Proof. intros r b H; apply acyclic_dec, H. Qed.

Lemma acyclic_false : forall r b, reflects n r b -> bacyclic n b = false -> ~ acyclic r.
Proof. intros r b H E A; apply (acyclic_dec r b H) in A; rewrite E in A; discriminate. Qed.

Lemma irreflexive_true : forall r b, reflects n r b -> birreflexive n b = true -> irreflexive r.
Proof. intros r b H; apply irreflexive_dec, H. Qed.

Lemma irreflexive_false : forall r b, reflects n r b -> birreflexive n b = false -> ~ irreflexive r.
Proof. intros r b H E A; apply (irreflexive_dec r b H) in A; rewrite E in A; discriminate. Qed.

Lemma empty_true : forall r b, reflects n r b -> bempty n b = true -> empty r.
Proof. intros r b H; apply empty_dec, H. Qed.

Lemma empty_false : forall r b, reflects n r b -> bempty n b = false -> ~ empty r.
Proof. intros r b H E A; apply (empty_dec r b H) in A; rewrite E in A; discriminate. Qed.

Lemma set_empty_true : forall s b, reflects_set n s b -> bset_empty n b = true -> set_empty s.
Proof. intros s b H; apply set_empty_dec, H. Qed.

Lemma set_empty_false : forall s b, reflects_set n s b -> bset_empty n b = false -> ~ set_empty s.
Proof. intros s b H E A; apply (set_empty_dec s b H) in A; rewrite E in A; discriminate. Qed.

(* Inclusion and equality. *)
Lemma set_incl_dec : forall s1 s2 b1 b2, reflects_set n s1 b1 -> reflects_set n s2 b2 ->
  (bset_subset n b1 b2 = true <-> set_incl s1 s2).
Proof.
  intros s1 s2 b1 b2 H1 H2; unfold bset_subset, set_incl; rewrite forallb_upto; split.
  - intros B x S; apply H1 in S; destruct S as (Hx & E).
    specialize (B x Hx); rewrite E in B; apply H2; auto.
  - intros I x Hx; destruct (b1 x) eqn:E; [|reflexivity].
    simpl; apply H2, I, H1; auto.
Qed.

Lemma inclusion_dec : forall r1 r2 b1 b2, reflects n r1 b1 -> reflects n r2 b2 ->
  (bsubset n b1 b2 = true <-> inclusion r1 r2).
Proof.
  intros r1 r2 b1 b2 H1 H2; rewrite bsubset_true; unfold inclusion; split.
  - intros B x y R; apply H1 in R; destruct R as (Hx & Hy & E); apply H2; auto.
  - intros I x y Hx Hy E; apply H2, I, H1; auto.
Qed.

Lemma set_same_dec : forall s1 s2 b1 b2, reflects_set n s1 b1 -> reflects_set n s2 b2 ->
  (bset_eq n b1 b2 = true <-> set_same s1 s2).
Proof.
  intros s1 s2 b1 b2 H1 H2; unfold bset_eq, set_same; rewrite andb_true_iff.
  rewrite (set_incl_dec s1 s2 b1 b2 H1 H2), (set_incl_dec s2 s1 b2 b1 H2 H1); tauto.
Qed.

Lemma same_rel_dec : forall r1 r2 b1 b2, reflects n r1 b1 -> reflects n r2 b2 ->
  (brel_eq n b1 b2 = true <-> same_rel r1 r2).
Proof.
  intros r1 r2 b1 b2 H1 H2; unfold brel_eq, same_rel; rewrite andb_true_iff.
  rewrite (inclusion_dec r1 r2 b1 b2 H1 H2), (inclusion_dec r2 r1 b2 b1 H2 H1); tauto.
Qed.

(* A field restricted to the events e: its mirror is the mirror of the whole, cut to e. *)
Lemma restrict_set_reflects : forall s b e be s',
  reflects_set n s b -> reflects_set n e be -> set_same s' (set_inter s e) ->
  reflects_set n s' (bset_inter b be).
Proof.
  intros s b e be s' H He [I1 I2].
  apply (reflects_set_same (set_inter s e) s' (bset_inter b be)); [split; assumption|].
  apply set_inter_reflects; assumption.
Qed.

Lemma restrict_rel_reflects : forall r b e be r',
  reflects n r b -> reflects_set n e be -> same_rel r' (inter r (cross e e)) ->
  reflects n r' (binter b (bcross be be)).
Proof.
  intros r b e be r' H He [I1 I2].
  apply (reflects_same (inter r (cross e e)) r' (binter b (bcross be be))); [split; assumption|].
  apply inter_reflects, cross_reflects; assumption.
Qed.

End Closures.

(* ------------------------------------------------------------------ *)
(* Implicit arguments: only the reflection hypotheses are passed, e.g.
   [acyclic_true my_reflects], [tc_reflects H]; name them when needed, e.g.
   [acyclic_false (b := bunion po_b obs_b)]. *)

Arguments rel_of_reflects {n b}.
Arguments set_of_reflects {n b}.
Arguments reflects_in {n r b x y}.
Arguments reflects_set_in {n s b x}.
Arguments reflects_same {n r1 r2 b}.
Arguments reflects_bext {n r b1 b2}.
Arguments reflects_set_same {n s1 s2 b}.
Arguments reflects_set_bext {n s b1 b2}.
Arguments reflects_unique {n r1 r2 b}.
Arguments bmat_reflects {n r b}.
Arguments bvec_reflects {n s b}.
Arguments set_union_reflects {n s1 s2 b1 b2}.
Arguments set_inter_reflects {n s1 s2 b1 b2}.
Arguments set_minus_reflects {n s1 s2 b1 b2}.
Arguments set_compl_reflects {n U u s b}.
Arguments domain_reflects {n r b}.
Arguments range_reflects {n r b}.
Arguments union_reflects {n r1 r2 b1 b2}.
Arguments inter_reflects {n r1 r2 b1 b2}.
Arguments minus_reflects {n r1 r2 b1 b2}.
Arguments seq_reflects {n r1 r2 b1 b2}.
Arguments inv_reflects {n r b}.
Arguments id_on_reflects {n a b}.
Arguments cross_reflects {n a1 a2 b1 b2}.
Arguments compl_reflects {n U u r b}.
Arguments tc_reflects {n r b}.
Arguments rtc_reflects {n U u r b}.
Arguments opt_reflects {n U u r b}.
Arguments irreflexive_dec {n r b}.
Arguments acyclic_dec {n r b}.
Arguments empty_dec {n r b}.
Arguments set_empty_dec {n s b}.
Arguments acyclic_true {n r b}.
Arguments acyclic_false {n r b}.
Arguments irreflexive_true {n r b}.
Arguments irreflexive_false {n r b}.
Arguments empty_true {n r b}.
Arguments empty_false {n r b}.
Arguments set_empty_true {n s b}.
Arguments set_empty_false {n s b}.
Arguments set_incl_dec {n s1 s2 b1 b2}.
Arguments inclusion_dec {n r1 r2 b1 b2}.
Arguments set_same_dec {n s1 s2 b1 b2}.
Arguments same_rel_dec {n r1 r2 b1 b2}.
Arguments restrict_set_reflects {n s b e be s'}.
Arguments restrict_rel_reflects {n r b e be r'}.

(* ------------------------------------------------------------------ *)
(* Tactics                                                             *)

(* Leaf lemmas [reflects n c cb] for the exporter's definitions. Constants
   are opaque for this database: a hint about [foo] never unifies with a
   goal about [bar] by unfolding both (which can be very slow), so each
   definition needs its own hint. *)
Create HintDb mc_reflect discriminated.
#[export] Hint Constants Opaque : mc_reflect.
#[export] Hint Variables Opaque : mc_reflect.
#[export] Hint Resolve rel_of_reflects set_of_reflects : mc_reflect.

(* A set with a mirror over 0..n-1 is finite: its boolean side is [true]. *)
Lemma set_finite_dec : forall n s b, reflects_set n s b -> (true = true <-> set_finite s).
Proof.
  intros n s b H; split; [intros _; exists n; intros x S; apply H in S; tauto | reflexivity].
Qed.
#[export] Hint Resolve set_finite_dec : mc_reflect.

(* Leaves: a hypothesis, or a lemma of the hint database mc_reflect. *)
Ltac reflect_atom :=
  first
  [ assumption
  | solve [ eauto with nocore mc_reflect ]
  | match goal with |- ?g => fail 1 "reflect_tac: no reflection lemma for" g end ].

(* Structural descent: the head operators of both sides must correspond.
   Matching is syntactic: a defined constant is never unfolded here, it is
   a leaf looked up with reflect_atom. *)
Ltac reflect_tac :=
  lazymatch goal with
  | |- reflects _ _ (bmat _ _) => apply bmat_reflects; reflect_tac
  | |- reflects _ rel0 brel0 => apply rel0_reflects
  | |- reflects _ (rel_of _ _) _ => apply rel_of_reflects
  | |- reflects _ (union _ _) (bunion _ _) => apply union_reflects; reflect_tac
  | |- reflects _ (inter _ _) (binter _ _) => apply inter_reflects; reflect_tac
  | |- reflects _ (minus _ _) (bminus _ _) => apply minus_reflects; reflect_tac
  | |- reflects _ (seq _ _) (bseq _ _ _) => apply seq_reflects; reflect_tac
  | |- reflects _ (inv _) (binv _) => apply inv_reflects; reflect_tac
  | |- reflects _ (id_on _) (bid_on _) => apply id_on_reflects; reflect_tac
  | |- reflects _ (cross _ _) (bcross _ _) => apply cross_reflects; reflect_tac
  | |- reflects _ (compl _ _) (bcompl _ _) => apply compl_reflects; reflect_tac
  | |- reflects _ (tc _) (btc _ _) => apply tc_reflects; reflect_tac
  | |- reflects _ (rtc _ _) (brtc _ _ _) => apply rtc_reflects; reflect_tac
  | |- reflects _ (opt _ _) (bopt _ _) => apply opt_reflects; reflect_tac
  | |- reflects _ _ _ => reflect_atom
  | |- reflects_set _ _ (bvec _ _) => apply bvec_reflects; reflect_tac
  | |- reflects_set _ set0 bset0 => apply set0_reflects
  | |- reflects_set _ (set_of _ _) _ => apply set_of_reflects
  | |- reflects_set _ (set_union _ _) (bset_union _ _) => apply set_union_reflects; reflect_tac
  | |- reflects_set _ (set_inter _ _) (bset_inter _ _) => apply set_inter_reflects; reflect_tac
  | |- reflects_set _ (set_minus _ _) (bset_minus _ _) => apply set_minus_reflects; reflect_tac
  | |- reflects_set _ (set_compl _ _) (bset_compl _ _) => apply set_compl_reflects; reflect_tac
  | |- reflects_set _ (domain _) (bdomain _ _) => apply domain_reflects; reflect_tac
  | |- reflects_set _ (range _) (brange _ _) => apply range_reflects; reflect_tac
  | |- reflects_set _ _ _ => reflect_atom
  | |- _ = true => vm_compute; reflexivity
  | |- ?g => fail "reflect_tac: unexpected goal" g
  end.

(* Monotonicity of a body F (variable in positive positions; minus/compl/
   set_minus/set_compl are handled as antitone in their negative argument). *)
Ltac mono_rec :=
  lazymatch goal with
  | |- inclusion ?a ?a => apply incl_refl
  | |- set_incl ?a ?a => apply set_incl_refl
  | H : inclusion ?a ?b |- inclusion ?a ?b => exact H
  | |- inclusion (union _ _) (union _ _) => apply union_mono; mono_rec
  | |- inclusion (inter _ _) (inter _ _) => apply inter_mono; mono_rec
  | |- inclusion (minus _ _) (minus _ _) => apply minus_mono; mono_rec
  | |- inclusion (seq _ _) (seq _ _) => apply seq_mono; mono_rec
  | |- inclusion (inv _) (inv _) => apply inv_mono; mono_rec
  | |- inclusion (tc _) (tc _) => apply tc_mono; mono_rec
  | |- inclusion (rtc ?U _) (rtc ?U _) => apply rtc_mono; mono_rec
  | |- inclusion (opt ?U _) (opt ?U _) => apply opt_mono; mono_rec
  | |- inclusion (compl ?U _) (compl ?U _) => apply compl_mono; mono_rec
  | |- inclusion (id_on _) (id_on _) => apply id_on_mono; mono_rec
  | |- inclusion (cross _ _) (cross _ _) => apply cross_mono; mono_rec
  | |- set_incl (domain _) (domain _) => apply domain_mono; mono_rec
  | |- set_incl (range _) (range _) => apply range_mono; mono_rec
  | |- set_incl (set_union _ _) (set_union _ _) => apply set_union_mono; mono_rec
  | |- set_incl (set_inter _ _) (set_inter _ _) => apply set_inter_mono; mono_rec
  | |- set_incl (set_minus _ _) (set_minus _ _) => apply set_minus_mono; mono_rec
  | |- set_incl (set_compl ?U _) (set_compl ?U _) => apply set_compl_mono; mono_rec
  | |- ?g => fail "mono_tac: cannot prove" g
  end.

(* Goal: forall r s, inclusion r s -> inclusion (F r) (F s)
   (possibly after more leading foralls). *)
Ltac mono_tac := intros until 1; cbv beta; mono_rec.

(* Break a hypothesis along union / seq (syntactic heads only). *)
Ltac lfp_destr H :=
  lazymatch type of H with
  | union _ _ _ _ =>
      let H1 := fresh "H" in let H2 := fresh "H" in
      destruct H as [H1|H2]; [lfp_destr H1 | lfp_destr H2]
  | seq _ _ _ _ =>
      let z := fresh "z" in let H1 := fresh "H" in let H2 := fresh "H" in
      destruct H as [z [H1 H2]]; lfp_destr H1; lfp_destr H2
  | _ => idtac
  end.

(* Build a goal along union / seq from hypotheses (with backtracking). *)
Ltac lfp_build :=
  first
  [ eassumption
  | lazymatch goal with
    | |- union _ _ _ _ => first [ left; solve [lfp_build] | right; solve [lfp_build] ]
    | |- seq _ _ _ _ => eexists; split; [lfp_build | lfp_build]
    end ].

(* Goal: forall x y, F I x y -> I x y, for an Inductive I whose constructors
   are the union branches of F, each a seq-chain of atoms (premises in
   order). *)
Ltac lfp_ctor_tac :=
  let x := fresh "x" in let y := fresh "y" in let H := fresh "H" in
  intros x y H; cbv beta in H; lfp_destr H;
  solve [ econstructor; solve [lfp_build] ].

(* Goal: forall R, inclusion (F R) R -> inclusion I R. *)
Ltac lfp_ind_tac :=
  let R := fresh "R" in let HF := fresh "HF" in
  let x := fresh "x" in let y := fresh "y" in let H := fresh "H" in
  intros R HF x y H; induction H; apply HF; cbv beta; solve [lfp_build].

(* Goal: forall r b, reflects n r b -> reflects n (F r) (bF b). *)
Ltac lfp_bF_tac :=
  let r := fresh "r" in let b := fresh "b" in let H := fresh "Hrb" in
  intros r b H; cbv beta; reflect_tac.

(* Goal: reflects n I (blfp n bF); F the body of I as a function of I. *)
Ltac lfp_tac I F :=
  apply (lfp_reflects _ I F); [ mono_tac | lfp_ctor_tac | lfp_ind_tac | lfp_bF_tac ].
