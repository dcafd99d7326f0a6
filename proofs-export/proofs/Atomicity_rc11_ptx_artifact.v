(* Atomicity_rc11_ptx_artifact.v -- hand-written, NOT generated.

   Scoped RC11's Atomicity axiom holds on the lift Xs of every PTX-consistent execution Xt of a
   compiled program, for mappings/rc11-ptx-artifact.map, provided the lift has no data race:
   [atomicity_of_race_free_lift]. This is the ASPLOS'19 form of the claim (race freedom of the
   execution); the exported obligation has race freedom of the *program* ([drf]: no consistent
   execution races), and the step from one to the other is what is left (docs/decisions/005).

   The proof. Let [rmw r w], [rf w0 r], [co_s w0 w'] and [co_s w' w] in Xs.
   - co of Xs agrees with co of Xt on the writes ([co_agrees]): an initial write is first in
     both; two other writes of one location are ordered by hb (then by PTX's po or cause,
     [hb_in_cause], which PTX's coherence axioms put in co_t in the same direction) or are
     atomics of inclusive scopes (then morally strong in Xt, so co_t orders them, and the other
     direction would contradict co_t <= co_s).
   - So [fr_t r w'] and [co_t w' w]. If w' and w are atomics of inclusive scopes, both edges are
     morally strong and PTX's Atomicity fails. If [hb w' w], hb reaches the RMW's read r
     ([hb_to_rmw_read]: the read is immediately before the write), and PTX's SCPerLocation or
     Causality fails on [fr_t r w'] followed by po or cause back to r. [hb w w'] contradicts
     [co_s w' w].

   The test suite compiles this file against a fresh export (mapcheck export-coq
   mappings/rc11-ptx-artifact.map) after the files it imports. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf Program Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6 Obligations_rc11_ptx_artifact Compilation_rc11_ptx_artifact Strength_rc11_ptx_artifact Cause_rc11_ptx_artifact.

(* ------------------------------------------------------------------ *)
(* hb of scoped RC11 on any well-formed execution                      *)

Section Hb.
Variable X : exec.
Hypothesis Wf : wf_consistent X.

(* The last step of a transitive closure. *)
Lemma tc_last : forall (r : rel) x y, tc r x y -> r x y \/ exists z, tc r x z /\ r z y.
Proof.
  intros r x y T. induction T as [x y H|x z y H T IH]; [left; exact H|].
  right. destruct IH as [L|(m & T' & L)].
  - exists z. split; [apply tc_once; exact H | exact L].
  - exists m. split; [eapply tc_step; eassumption | exact L].
Qed.

(* A step of hb is an sb step, or a synchronisation ending at a read or a fence. *)
Lemma hb_step_ends : forall a b, hb_step X a b -> rc11_scoped_sb X a b \/ R X b \/ F X b.
Proof.
  intros a b [S|[_ (m & _ & (k & (j & [_ [[Rj _] <-]]) & (l & O & [_ <-])))]]; [left; exact S|].
  destruct O as [[_ <-]|(z & _ & [Fl <-])]; [right; left; exact Rj | right; right; exact Fl].
Qed.

(* Nothing is hb-before an initial write. *)
Lemma hb_not_into_iw : forall a b, rc11_scoped_hb X a b -> ~ IW X b.
Proof.
  intros a b H Ib. change (tc (hb_step X) a b) in H.
  assert (Wb : ~ ~ W X b) by exact (nn_set_incl _ _ b (wf_consistent_IW_writes _ Wf) Ib).
  destruct (tc_last _ _ _ H) as [L|(z & _ & L)]; apply hb_step_ends in L;
  destruct L as [[P|[_ [_ Nb]]]|[Rb|Fb]];
  solve [ exact (po_threaded_r X Wf _ _ P Ib)
        | exact (Nb Ib)
        | apply Wb; intro Wb'; apply (wf_consistent_kinds_disjoint _ Wf b); cbv [set_union set_inter]; tauto ].
Qed.

End Hb.

(* ------------------------------------------------------------------ *)

Section Atomicity.
Variables (Ps Pt : program) (Xs Xt : exec).
Hypothesis C : compilation Ps Pt Xs Xt.

(* The facts of the Strength and Cause files, for this compilation. *)
Let iw_in_target := Strength_rc11_ptx_artifact.iw_in_target Ps Pt Xs Xt C.
Let iw_of_target := Strength_rc11_ptx_artifact.iw_of_target Ps Pt Xs Xt C.
Let rmw_atomic := Strength_rc11_ptx_artifact.rmw_atomic Ps Pt Xs Xt C.
Let rmw_incl := Strength_rc11_ptx_artifact.rmw_incl Ps Pt Xs Xt C.
Let morally_strong_of_incl := Strength_rc11_ptx_artifact.morally_strong_of_incl Ps Pt Xs Xt C.
Let hb_in_cause := Cause_rc11_ptx_artifact.hb_in_cause Ps Pt Xs Xt C.

(* The lift has no data race: what is left to derive from [drf Ps]. *)
Hypothesis Xs_race_free : rc11_scoped_race_free Xs.

Let WfS := Xs_wf Ps Pt Xs Xt C.
Let WfT := Xt_wf Ps Pt Xs Xt C.

(* Distinct events are not related by id. *)
Lemma not_id : forall X x y, wf_consistent X -> x <> y -> ~ id X x y.
Proof.
  intros X x y Wf D I. apply (wf_consistent_id_def _ Wf x y). left. split; [exact I|]. intros [_ E']. exact (D E').
Qed.

(* Two distinct writes of one location of Xs are ordered by hb, or atomics of inclusive scopes. *)
Lemma writes_not_racing : forall x y, W Xs x -> W Xs y -> loc Xs x y -> x <> y ->
  ~ ~ (rc11_scoped_hb Xs x y \/ rc11_scoped_hb Xs y x \/
       (rc11_scoped_A Xs x /\ incl Xs x y /\ rc11_scoped_A Xs y)).
Proof.
  intros x y Wx Wy L D N. apply Xs_race_free. intros Emp.
  apply (RW_M Xs y WfS (or_intror Wy)). intro My.
  apply (Emp x y). split; [split|].
  - split; [split; [left; split; assumption | exact L] | exact (not_id _ _ _ WfS D)].
  - intros [H|H]; apply N; [left | right; left]; exact H.
  - intros (m & [Ax <-] & (k & I & [Ay <-])). apply N. right. right. auto.
Qed.

(* PTX's axioms on Xt, for one choice of its SC-fence order. *)
Section TargetConsistent.
Variable sco : rel.
Hypothesis Coherence : ptx_v6_ax_Coherence Xt sco.
Hypothesis CoherenceMS : ptx_v6_ax_CoherenceMorallyStrong Xt sco.
Hypothesis AtomicityT : ptx_v6_ax_Atomicity Xt sco.
Hypothesis SCPerLocation : ptx_v6_ax_SCPerLocation Xt sco.
Hypothesis Causality : ptx_v6_ax_Causality Xt sco.

(* Related by po and on one location: morally strong. *)
Lemma po_morally_strong : forall a b, po Xt a b -> loc Xt a b -> ptx_v6_morally_strong Xt a b.
Proof. intros a b P L. right. split; [left; exact P | exact L]. Qed.
Lemma po_inv_morally_strong : forall a b, po Xt b a -> loc Xt a b -> ptx_v6_morally_strong Xt a b.
Proof. intros a b P L. right. split; [right; left; exact P | exact L]. Qed.

(* loc of an execution is symmetric (doubly negated). *)
Lemma loc_sym : forall X a b, wf_consistent X -> loc X a b -> ~ ~ loc X b a.
Proof.
  intros X a b Wf L N. apply (wf_consistent_loc_equivalence _ Wf a b). right. left. split; [exact L | exact N].
Qed.

(* Two distinct writes of one location of Xt, morally strong: co_t orders them. *)
Lemma co_of_morally_strong : forall x y, W Xt x -> W Xt y -> loc Xt x y -> x <> y ->
  ptx_v6_morally_strong Xt x y -> ~ ~ (co Xt x y \/ co Xt y x).
Proof.
  intros x y Wx Wy L D Ms N. apply (CoherenceMS x y). split; [split|].
  - split; [exists x; split; [split; [exact Wx | reflexivity]|] | exact L].
    exists y. split; [exact Ms | split; [exact Wy | reflexivity]].
  - exact (not_id _ _ _ WfT D).
  - intros Co. apply N. exact Co.
Qed.

(* Two distinct writes of one location of Xs, hb-ordered, the first not initial: co_t orders
   them the same way. *)
Lemma co_of_hb : forall x y, ~ IW Xs x -> W Xs x -> W Xs y -> loc Xs x y -> x <> y ->
  rc11_scoped_hb Xs x y -> ~ ~ co Xt x y.
Proof.
  intros x y Nx Wx Wy L D H.
  apply (nn_bind _ _ (writes_in_target _ _ _ _ C x Wx)). intro Wtx.
  apply (nn_bind _ _ (writes_in_target _ _ _ _ C y Wy)). intro Wty.
  apply (nn_bind _ _ (loc_in_target _ _ _ _ C x y L)). intro Lt.
  apply (nn_bind _ _ (hb_in_cause sco x y H)). intros [Ix|[P|Cb]].
  - intros _. exact (Nx Ix).
  - apply (nn_bind _ _ (co_of_morally_strong x y Wtx Wty Lt D (po_morally_strong x y P Lt))).
    intros [Co|Co]; [apply nn_ret; exact Co|]. intros _.
    apply (loc_sym _ _ _ WfT Lt). intro Lyx.
    apply (SCPerLocation x). eapply tc_step; [right; split; [exact P | exact Lt]|].
    apply tc_once. left. split; [exact (po_inv_morally_strong y x P Lyx) | right; left; exact Co].
  - intro N. apply (Coherence x y). split; [|exact N]. split; [|exact Lt].
    exists x. split; [split; [exact Wtx | reflexivity]|].
    exists y. split; [left; exact Cb | split; [exact Wty | reflexivity]].
Qed.

(* co of Xs is co of Xt (doubly negated). *)
Lemma co_agrees : forall x y, co Xs x y -> ~ ~ co Xt x y.
Proof.
  intros x y Co.
  apply (nn_bind _ _ (wf_co_shape Xs WfS x y Co)). intros [[Wx Wy] L].
  assert (D : x <> y) by (intros ->; exact (wf_co_irreflexive Xs WfS y Co)).
  pose proof (wf_co_init_first Xs WfS x y Co) as Ny.
  apply (nn_bind _ _ (nn_em (IW Xs x))). intros [Ix|Nx].
  - (* an initial write is co-first in Xt as well *)
    apply (nn_bind _ _ (iw_in_target x Ix)). intro Itx.
    apply (nn_bind _ _ (writes_in_target _ _ _ _ C y Wy)). intro Wty.
    apply (nn_bind _ _ (loc_in_target _ _ _ _ C x y L)). intro Lt.
    apply (nn_bind _ _ (wf_in_events Xs WfS x y (or_intror (or_introl Co)))). intros [_ Ey].
    intro N. apply (wf_consistent_co_init_before _ WfT x y). split; [|exact N].
    split; [|exact Lt]. split; [exact Itx|]. split; [exact Wty|].
    intro Ity. exact (iw_of_target y Ey Ity Ny).
  - apply (nn_bind _ _ (writes_not_racing x y Wx Wy L D)). intros [H|[H|(Ax & I & Ay)]].
    + exact (co_of_hb x y Nx Wx Wy L D H).
    + apply (nn_bind _ _ (loc_sym _ _ _ WfS L)). intro Lyx.
      apply (nn_bind _ _ (co_of_hb y x Ny Wy Wx Lyx (not_eq_sym D) H)). intro Cyx.
      intros _. apply (co_source_transitive _ _ _ _ C x y x Co (c_lift_co _ _ _ _ C y x Cyx)).
      exact (co_source_irreflexive _ _ _ _ C x).
    + apply (nn_bind _ _ (morally_strong_of_incl x y Nx Ny Ax Ay I L)). intro Ms.
      apply (nn_bind _ _ (writes_in_target _ _ _ _ C x Wx)). intro Wtx.
      apply (nn_bind _ _ (writes_in_target _ _ _ _ C y Wy)). intro Wty.
      apply (nn_bind _ _ (loc_in_target _ _ _ _ C x y L)). intro Lt.
      apply (nn_bind _ _ (co_of_morally_strong x y Wtx Wty Lt D Ms)).
      intros [Cxy|Cyx]; [apply nn_ret; exact Cxy|]. intros _.
      apply (co_source_transitive _ _ _ _ C x y x Co (c_lift_co _ _ _ _ C y x Cyx)).
      exact (co_source_irreflexive _ _ _ _ C x).
Qed.

(* The read of an RMW is immediately po-before its write: an event po-before the write is the
   read or po-before it (in Xs; [searched] says so of the source skeleton). *)
Lemma before_rmw_write : forall z r w, rmw Xs r w -> po Xs z w -> z <> r -> ~ ~ po Xs z r.
Proof.
  intros z r w Rmw P D.
  pose proof (Xs_of _ _ _ _ C) as Os. pose proof (Ps_wf _ _ _ _ C) as WfP.
  destruct (proj1 (exec_of_rmw _ _ Os) r w Rmw) as [RmwP [Er _]].
  destruct (proj1 (exec_of_po _ _ Os) z w P) as [PP [Ez _]].
  destruct (c_searched _ _ _ _ C) as (_ & _ & _ & _ & _ & _ & _ & _ & _ & _ & _ & _ & One & _).
  apply (nn_bind _ _ (nn_incl _ _ r w One RmwP)). intros [[Prw Imm] _].
  apply (nn_bind _ _ (nn_incl _ _ z w (wf_consistent_po_int _ WfP) PP)). intro Izw.
  apply (nn_bind _ _ (nn_incl _ _ r w (wf_consistent_po_int _ WfP) Prw)). intro Irw.
  apply (nn_bind _ _ (int_sym _ _ _ WfP Irw)). intro Iwr.
  apply (nn_bind _ _ (int_trans _ _ _ _ WfP Izw Iwr)). intro Izr'.
  assert (T : ~ ~ union (po (pr Ps)) (inv (po (pr Ps))) z r).
  { apply (nn_incl _ _ z r (wf_consistent_po_total _ WfP)). split; [exact Izr' | exact (not_id _ _ _ WfP D)]. }
  apply (nn_bind _ _ T). intros [Pzr|Prz].
  - apply nn_ret. apply (proj2 (exec_of_po _ _ Os)). split; [exact Pzr | split; assumption].
  - intros _. apply Imm. exists z. split; assumption.
Qed.

(* hb into the write of an RMW reaches its read. *)
Lemma hb_to_rmw_read : forall x r w, rmw Xs r w -> rc11_scoped_hb Xs x w -> ~ IW Xs x -> x <> r ->
  ~ ~ rc11_scoped_hb Xs x r.
Proof.
  intros x r w Rmw H Nx D. apply (nn_bind _ _ (rmw_ends Xs r w WfS Rmw)). intros [_ Ww].
  assert (NotRF : R Xs w \/ F Xs w -> False).
  { intros [Rw|Fw]; apply (wf_consistent_kinds_disjoint _ WfS w); cbv [set_union set_inter]; tauto. }
  change (tc (hb_step Xs) x w) in H. change (~ ~ tc (hb_step Xs) x r).
  destruct (tc_last _ _ _ H) as [L|(z & Hz & L)]; apply hb_step_ends in L;
    destruct L as [[P|[Iz _]]|RF]; try (intros _; exact (NotRF RF)).
  - apply (nn_bind _ _ (before_rmw_write x r w Rmw P D)). intro P'.
    apply nn_ret. apply tc_once. left. left. exact P'.
  - intros _. exact (Nx Iz).
  - destruct (PeanoNat.Nat.eq_dec z r) as [->|Dz]; [apply nn_ret; exact Hz|].
    apply (nn_bind _ _ (before_rmw_write z r w Rmw P Dz)). intro P'.
    apply nn_ret. eapply tc_step_r; [exact Hz|]. left. left. exact P'.
  - intros _. exact (hb_not_into_iw Xs WfS x z Hz Iz).
Qed.

(* Scoped RC11's Atomicity on Xs, given PTX's axioms on Xt. *)
Lemma atomicity_from_axioms : rc11_scoped_ax_Atomicity Xs.
Proof.
  intros r w [Rmw (w' & Fr & Co)]. unfold rc11_scoped_rb, rc11_scoped_mo in *.
  apply (fr_source_def _ _ _ _ C r w' Fr). intros (w0 & Rf & Co0).
  apply (co_agrees w0 w' Co0). intro Ct0.
  apply (co_agrees w' w Co). intro Ct.
  apply (rmw_ends Xs r w WfS Rmw). intros [Rr Ww].
  apply (wf_co_shape Xs WfS w' w Co). intros [[Ww' _] Lw'w].
  apply (nn_incl _ _ r w (wf_consistent_rmw_shape _ WfS) Rmw). intros [_ [_ Lrw]].
  pose proof (wf_co_init_first Xs WfS w0 w' Co0) as Nw'.
  pose proof (wf_co_init_first Xs WfS w' w Co) as Nw.
  assert (D : w <> w') by (intros ->; exact (wf_co_irreflexive Xs WfS w' Co)).
  assert (Dr : w' <> r) by (intros ->; apply (wf_consistent_kinds_disjoint _ WfS r); cbv [set_union set_inter]; tauto).
  apply (loc_sym _ _ _ WfS Lw'w). intro Lww'.
  apply (loc_trans Xs WfS _ _ _ Lrw Lww'). intro Lrw'.
  apply (loc_in_target _ _ _ _ C r w' Lrw'). intro Ltrw'.
  apply (loc_sym _ _ _ WfT Ltrw'). intro Ltw'r.
  apply (rmw_in_target _ _ _ _ C r w Rmw). intro Rmwt.
  apply (wf_consistent_fr_def _ WfT r w'). right. split; [exists w0; split; [exact (proj1 (c_lift_rf _ _ _ _ C) w0 r Rf) | exact Ct0]|].
  intro Frt.
  apply (writes_not_racing w w' Ww Ww' Lww' D). intros [H|[H|(Aw & I & Aw')]].
  - (* hb w w': co_t w w', against co_s w' w *)
    apply (co_of_hb w w' Nw Ww Ww' Lww' D H). intro Cww'.
    apply (co_source_transitive _ _ _ _ C w w' w (c_lift_co _ _ _ _ C w w' Cww') Co).
    exact (co_source_irreflexive _ _ _ _ C w).
  - (* hb w' w: hb w' r, and fr_t r w' closes a cycle of PTX's SCPerLocation or Causality *)
    apply (hb_to_rmw_read w' r w Rmw H Nw' Dr). intro Hr.
    apply (hb_in_cause sco w' r Hr). intros [Iw'|[P|Cb]].
    + exact (Nw' Iw').
    + apply (SCPerLocation w'). eapply tc_step; [right; split; [exact P | exact Ltw'r]|].
      apply tc_once. left. split; [exact (po_inv_morally_strong r w' P Ltrw') | right; right; exact Frt].
    + apply (Causality r). exists w'. split; [right; exact Frt | left; exact Cb].
  - (* atomics of inclusive scopes: both edges morally strong, PTX's Atomicity fails *)
    apply (rmw_atomic r w Rmw). intros [Ar _].
    apply (rmw_incl r w w' Rmw I). intro Irw'.
    apply (incl_sym Xs w w' WfS I). intro Iw'w.
    apply (morally_strong_of_incl r w' (R_not_IW Xs r WfS Rr) Nw' Ar Aw' Irw' Lrw'). intro Ms1.
    apply (morally_strong_of_incl w' w Nw' Nw Aw' Aw Iw'w Lw'w). intro Ms2.
    apply (AtomicityT r w). split; [|exact Rmwt].
    exists w'. split; split; assumption.
Qed.

End TargetConsistent.

(* Scoped RC11's Atomicity on the lift of a PTX-consistent execution with no data race. *)
Theorem atomicity_of_race_free_lift : rc11_scoped_ax_Atomicity Xs.
Proof.
  destruct (c_consistent_t _ _ _ _ C) as (sco & _ & Coh & CohMS & At & _ & SCL & _ & Cau).
  exact (atomicity_from_axioms sco Coh CohMS At SCL Cau).
Qed.

End Atomicity.

(* What is left for the exported obligation, stated: the lift of every compilation (of a
   race-free program, [c_drf]) has no data race. Given it, the claim holds. *)
Definition lifts_race_free : Prop :=
  forall Ps Pt Xs Xt, compilation Ps Pt Xs Xt -> rc11_scoped_race_free Xs.

Theorem claim_Atomicity_of_lifts_race_free : lifts_race_free -> claim_rc11_scoped_ax_Atomicity.
Proof.
  intros L Ps Pt Xs Xt C _. exact (atomicity_of_race_free_lift Ps Pt Xs Xt C (L Ps Pt Xs Xt C)).
Qed.
